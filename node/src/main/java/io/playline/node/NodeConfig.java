package io.playline.node;

import io.playline.core.config.ConfigSource;
import io.playline.node.admin.AdminConfig;
import io.playline.node.grpc.GrpcServerConfig;
import io.playline.node.settings.NodeSettings;
import io.playline.node.tls.TlsConfig;
import io.playline.node.write.BatcherConfig;
import java.time.Duration;

/**
 * What a {@link Node} is built with, and what every server plugged into it shares; each key's
 * default and range are in docs/configuration.md.
 *
 * @param nodeId this node's id in sessions, the push registry and logs ({@code node.id})
 * @param bindHost address the node's servers bind unless their own key says otherwise ({@code bind.host})
 * @param ioThreads Netty worker threads of the players' ports, 0 = one per core ({@code io.threads})
 * @param apiIoThreads Netty worker threads of the internal API's ports, 0 = one per core ({@code api.io.threads})
 * @param redisOnIoLoop the Redis client (and the batcher) run on the first worker loop ({@code io.redis.shared})
 * @param adminPort the admin HTTP port ({@code admin.port})
 * @param admin the admin port's bind address, token and budgets ({@code admin.*}; {@link AdminConfig})
 * @param batcher the batched write path ({@code heartbeat.batch.*}, {@code heartbeat.queue.max}, ...)
 * @param tls TLS of the listeners ({@code tls.*}, {@code api.tls.client.ca}; {@link TlsConfig})
 * @param grpcServer what every gRPC server of the node is built with ({@link GrpcServerConfig})
 * @param tokenClockSkew leeway for a token's {@code exp}, {@code nbf} and {@code iat} ({@code auth.clock.skew})
 * @param writes how much one heartbeat or report may carry ({@link WriteLimitsConfig})
 */
public record NodeConfig(String nodeId, String bindHost, int ioThreads, int apiIoThreads, boolean redisOnIoLoop, int adminPort,
    AdminConfig admin, BatcherConfig batcher, TlsConfig tls, GrpcServerConfig grpcServer, Duration tokenClockSkew,
    WriteLimitsConfig writes) {

  /** Reads and validates every key above. */
  public static NodeConfig from(ConfigSource c) {
    return new NodeConfig(NodeSettings.NODE_ID.read(c, defaultNodeId()), NodeSettings.BIND_HOST.read(c),
        NodeSettings.IO_THREADS.read(c), NodeSettings.API_IO_THREADS.read(c), NodeSettings.IO_REDIS_SHARED.read(c), NodeSettings.ADMIN_PORT.read(c),
        AdminConfig.from(c), BatcherConfig.from(c), TlsConfig.from(c), GrpcServerConfig.from(c),
        RequestSettings.CLOCK_SKEW.read(c), WriteLimitsConfig.from(c));
  }

  private static String defaultNodeId() {
    String host;
    try {
      host = java.net.InetAddress.getLocalHost().getHostName();
    } catch (java.net.UnknownHostException e) {
      host = "node";
    }
    return host + "-" + ProcessHandle.current().pid();
  }
}
