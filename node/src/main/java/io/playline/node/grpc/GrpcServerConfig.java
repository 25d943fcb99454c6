package io.playline.node.grpc;

import io.playline.core.config.ConfigSource;
import io.playline.node.settings.NodeSettings;
import io.playline.node.edge.EdgeSettings;
import io.playline.node.edge.TrustedProxies;
import java.time.Duration;

/**
 * What every gRPC server of a node (player stream, internal API) is built with ({@link
 * GrpcServers#builder}).
 *
 * @param limits per-connection HTTP/2 limits ({@code grpc.*})
 * @param maxFrameBytes largest inbound message ({@code frame.max.bytes})
 * @param handshakeTimeout time a connection has to finish the HTTP/2 (and TLS) handshake ({@code
 *     handshake.timeout})
 * @param proxyTrusted the peers whose PROXY protocol header is believed ({@code proxy.trusted.cidrs}),
 *     on servers that expect one
 */
public record GrpcServerConfig(GrpcLimitsConfig limits, int maxFrameBytes, Duration handshakeTimeout,
    TrustedProxies proxyTrusted) {

  /**
   * This configuration with another reset budget per connection ({@link
   * GrpcLimitsConfig#withMaxRstFramesPerWindow}).
   */
  public GrpcServerConfig withMaxRstFramesPerWindow(int max) {
    return new GrpcServerConfig(limits.withMaxRstFramesPerWindow(max), maxFrameBytes, handshakeTimeout, proxyTrusted);
  }

  /** Reads and validates the keys above. */
  public static GrpcServerConfig from(ConfigSource c) {
    return new GrpcServerConfig(GrpcLimitsConfig.from(c), EdgeSettings.FRAME_MAX_BYTES.read(c),
        EdgeSettings.HANDSHAKE_TIMEOUT.read(c), TrustedProxies.parse(NodeSettings.PROXY_TRUSTED_CIDRS.read(c)));
  }
}
