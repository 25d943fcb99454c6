/**
 * Layered, validated configuration shared by every Playline role: {@link
 * io.playline.core.config.ConfigSource}, the {@link io.playline.core.config.Setting} that defines
 * one key, and history-core's keys, one {@link io.playline.core.config.SettingsCatalogue} per area
 * ({@code CoreSettings}, {@code WriteBackSettings}, {@code FirstTodaySettings}, {@code
 * KafkaSettings}, {@code QuerySettings}).
 */
@NullMarked
package io.playline.core.config;

import org.jspecify.annotations.NullMarked;
