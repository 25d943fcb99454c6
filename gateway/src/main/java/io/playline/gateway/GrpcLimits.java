package io.playline.gateway;

import io.playline.core.config.ConfigSource;
import io.playline.gateway.config.LimitSettings;
import java.time.Duration;

/**
 * Per-connection limits of Playline's gRPC servers (player stream and internal API), as HTTP/2
 * proxies set them: how many calls one connection may run at once, how often a client may ping,
 * and when an idle or old connection is sent away (GOAWAY; the client reconnects, spreading load
 * onto new nodes).
 *
 * @param maxConcurrentCallsPerConnection streams one connection may have open ({@code
 *     grpc.max.concurrent.calls.per.connection}, 100); more wait on the client
 * @param keepAlivePermitTime most frequent client keep-alive ping accepted ({@code
 *     grpc.keepalive.permit.time}, 10s); a client pinging faster is sent away (ENHANCE_YOUR_CALM)
 * @param maxConnectionIdle a connection without calls this long is closed ({@code
 *     grpc.max.connection.idle}, 1h; 0 = never)
 * @param maxConnectionAge a connection this old is asked to go away ({@code grpc.max.connection.age},
 *     0 = never); its calls get {@code grpc.max.connection.age.grace} (30s) to finish
 * @param maxConnectionAgeGrace see {@code maxConnectionAge}
 */
public record GrpcLimits(int maxConcurrentCallsPerConnection, Duration keepAlivePermitTime, Duration maxConnectionIdle,
    Duration maxConnectionAge, Duration maxConnectionAgeGrace) {

  /** Reads and validates the {@code grpc.*} limits. */
  public static GrpcLimits from(ConfigSource c) {
    return new GrpcLimits(
        LimitSettings.GRPC_MAX_CONCURRENT_CALLS.read(c),
        LimitSettings.GRPC_KEEPALIVE_PERMIT_TIME.read(c),
        LimitSettings.GRPC_MAX_CONNECTION_IDLE.read(c),
        LimitSettings.GRPC_MAX_CONNECTION_AGE.read(c),
        LimitSettings.GRPC_MAX_CONNECTION_AGE_GRACE.read(c));
  }
}
