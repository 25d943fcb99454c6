/**
 * Layered, validated configuration shared by every Playline role: {@link
 * io.playline.core.config.ConfigSource}, the {@link io.playline.core.config.Setting} that defines
 * one key, history-core's keys, one {@link io.playline.core.config.SettingsCatalogue} per area
 * ({@code CoreSettings}, {@code WriteBackSettings}, {@code FirstTodaySettings}, {@code
 * KafkaSettings}, {@code QuerySettings}), and the typed records read from them: {@link
 * io.playline.core.config.CoreConfig} and its parts ({@code QueryConfig}, {@code HBaseLayout},
 * {@code ClusterTopologyConfig}, {@code FirstTodayOutboxConfig}, {@code KafkaProducerConfig},
 * {@code KafkaTopicConfig} with its {@code KafkaTopic}s, {@code KafkaClientConfig} per {@code
 * KafkaClient}). It depends on no other package of history-core, so every one may read it.
 */
@NullMarked
package io.playline.core.config;

import org.jspecify.annotations.NullMarked;
