package io.playline.roles;

import io.playline.api.ApiServer;
import io.playline.node.Node;
import java.net.InetSocketAddress;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** The {@code playline} entry of an endpoints file: what a process serves, on loopback. */
public final class Addresses {
  private Addresses() {}

  /**
   * The player listeners (if any: {@link GatewayRole#playerAddresses}), {@code api}'s gRPC and HTTP
   * ports (if any) and {@code node}'s admin port.
   */
  public static Map<String, String> of(Node node, Map<String, String> players, @Nullable ApiServer api) {
    Map<String, String> own = new LinkedHashMap<>(players);
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
