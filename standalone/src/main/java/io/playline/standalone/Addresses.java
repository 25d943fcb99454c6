package io.playline.standalone;

import io.playline.api.ApiServer;
import io.playline.gateway.GatewayConfig;
import io.playline.gateway.GatewayNode;
import io.playline.node.Node;
import java.net.InetSocketAddress;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** The {@code playline} entry of an endpoints file: what a process serves, on loopback. */
final class Addresses {
  private Addresses() {}

  /**
   * The player listeners of {@code edge} (if any), {@code api}'s gRPC and HTTP ports (if any) and
   * {@code node}'s admin port.
   */
  static Map<String, String> of(Node node, @Nullable GatewayNode edge, @Nullable ApiServer api) {
    Map<String, String> own = new LinkedHashMap<>();
    if (edge != null) {
      own.put("websocket", (node.tls() != null ? "wss" : "ws") + "://127.0.0.1:" + edge.wsAddress().getPort() + GatewayConfig.WS_PATH);
      own.put("grpc", "127.0.0.1:" + edge.grpcAddress().getPort());
    }
    if (api != null) {
      own.put("api", "127.0.0.1:" + api.address().getPort());
      InetSocketAddress http = api.httpAddress();
      if (http != null) {
        own.put("apiHttp", (node.tls() != null ? "https" : "http") + "://127.0.0.1:" + http.getPort());
      }
    }
    own.put("admin", "http://127.0.0.1:" + node.adminAddress().getPort());
    return Collections.unmodifiableMap(own);
  }
}
