package io.playline.node.grpc;

import io.playline.core.config.ConfigException;
import io.playline.core.config.ConfigSource;
import io.playline.node.edge.EdgeSettings;
import java.time.Duration;

/**
 * Per-connection limits of Playline's gRPC servers (player stream and internal API), as HTTP/2
 * proxies set them: how many calls one connection may run at once, how often a client may ping or
 * reset streams, how soon a new connection must open a stream, and when an idle or old connection
 * is sent away (GOAWAY; the client reconnects, spreading load onto new nodes).
 *
 * @param maxConcurrentCallsPerConnection streams one connection may have open ({@code
 *     grpc.max.concurrent.calls.per.connection}, 100); more wait on the client
 * @param keepAlivePermitTime most frequent client keep-alive ping accepted ({@code
 *     grpc.keepalive.permit.time}, 10s); a client pinging faster is sent away (ENHANCE_YOUR_CALM)
 * @param maxConnectionIdle a connection without calls this long is closed ({@code
 *     grpc.max.connection.idle}, 5m; 0 = never)
 * @param maxConnectionAge a connection this old is asked to go away ({@code grpc.max.connection.age},
 *     1h, 0 = never); its calls get {@code grpc.max.connection.age.grace} (30s) to finish
 * @param maxConnectionAgeGrace see {@code maxConnectionAge}
 * @param maxRstFramesPerWindow RST_STREAM frames a connection may send or be sent per {@code
 *     rstWindow} ({@code grpc.max.rst.frames.per.window}, 200; the internal API port's own is {@code
 *     api.max.rst.frames.per.window}): more is a rapid-reset attack, answered with GOAWAY
 *     ENHANCE_YOUR_CALM and a close
 * @param rstWindow see {@code maxRstFramesPerWindow} ({@code grpc.rst.window}, 10s, whole seconds)
 * @param firstStreamTimeout a connection that opened no stream this long after connecting is closed
 *     ({@code grpc.first.stream.timeout}, 20s)
 */
public record GrpcLimitsConfig(int maxConcurrentCallsPerConnection, Duration keepAlivePermitTime,
    Duration maxConnectionIdle, Duration maxConnectionAge, Duration maxConnectionAgeGrace, int maxRstFramesPerWindow,
    Duration rstWindow, Duration firstStreamTimeout) {

  public GrpcLimitsConfig {
    EdgeSettings.GRPC_MAX_CONCURRENT_CALLS.check(maxConcurrentCallsPerConnection);
    EdgeSettings.GRPC_KEEPALIVE_PERMIT_TIME.check(keepAlivePermitTime);
    EdgeSettings.GRPC_MAX_CONNECTION_IDLE.check(maxConnectionIdle);
    EdgeSettings.GRPC_MAX_CONNECTION_AGE.check(maxConnectionAge);
    EdgeSettings.GRPC_MAX_CONNECTION_AGE_GRACE.check(maxConnectionAgeGrace);
    EdgeSettings.GRPC_MAX_RST_FRAMES.check(maxRstFramesPerWindow);
    EdgeSettings.GRPC_RST_WINDOW.check(rstWindow);
    ConfigException.check(rstWindow.getNano() == 0, EdgeSettings.GRPC_RST_WINDOW.key(), rstWindow, "whole seconds");
    EdgeSettings.GRPC_FIRST_STREAM_TIMEOUT.check(firstStreamTimeout);
  }

  /** These limits with another reset budget per connection (the internal API port has its own). */
  public GrpcLimitsConfig withMaxRstFramesPerWindow(int max) {
    return new GrpcLimitsConfig(maxConcurrentCallsPerConnection, keepAlivePermitTime, maxConnectionIdle,
        maxConnectionAge, maxConnectionAgeGrace, max, rstWindow, firstStreamTimeout);
  }

  /** Reads and validates the {@code grpc.*} limits. */
  public static GrpcLimitsConfig from(ConfigSource c) {
    return new GrpcLimitsConfig(
        EdgeSettings.GRPC_MAX_CONCURRENT_CALLS.read(c),
        EdgeSettings.GRPC_KEEPALIVE_PERMIT_TIME.read(c),
        EdgeSettings.GRPC_MAX_CONNECTION_IDLE.read(c),
        EdgeSettings.GRPC_MAX_CONNECTION_AGE.read(c),
        EdgeSettings.GRPC_MAX_CONNECTION_AGE_GRACE.read(c),
        EdgeSettings.GRPC_MAX_RST_FRAMES.read(c),
        EdgeSettings.GRPC_RST_WINDOW.read(c),
        EdgeSettings.GRPC_FIRST_STREAM_TIMEOUT.read(c));
  }
}
