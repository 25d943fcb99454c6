/**
 * The gateway's configuration: its keys ({@link io.playline.core.config.Setting} definitions, one
 * catalogue per area: {@code GatewaySettings}, {@code AuthSettings}, {@code LimitSettings}), what
 * docs/configuration.md lists, and the typed records read from them, {@link
 * io.playline.gateway.config.GatewayConfig} and its {@link io.playline.gateway.config.JwksConfig}.
 * Depends on nothing of the gateway, so every package may read it.
 */
@NullMarked
package io.playline.gateway.config;

import org.jspecify.annotations.NullMarked;
