package io.playline.gateway.session;

import io.playline.gateway.GatewayConfig;
import io.playline.gateway.GatewayMetrics;
import java.time.Clock;

/**
 * What every {@link StreamSession} of a gateway shares: config, the authenticator, metrics and
 * the clock. Thread-safe collaborators only.
 */
public record SessionServices(
    GatewayConfig config, Authenticator authenticator, GatewayMetrics metrics, Clock clock) {}
