package io.playline.standalone;

import io.netty.util.NetUtil;
import io.playline.api.config.ApiSettings;
import io.playline.core.config.ConfigSource;
import io.playline.gateway.ws.DemoPage;
import io.playline.node.settings.NodeSettings;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** What {@code bin/playline standalone} prints once it is up. Stateless. */
final class StandaloneBanner {
  private StandaloneBanner() {}

  /**
   * The banner's line on who can connect, when standalone chose loopback for the player ports
   * ({@code bind.host} unset in {@code given}): those ports only, or also the admin and API ports
   * given a host of their own beyond loopback; null when {@code bind.host} was set (the operator chose).
   */
  static @Nullable String bindLine(ConfigSource given) {
    if (given.raw(NodeSettings.BIND_HOST.key()).isPresent()) {
      return null;
    }
    List<String> beyond = new ArrayList<>();
    for (String key : List.of(NodeSettings.ADMIN_BIND_HOST.key(), ApiSettings.BIND_HOST.key())) {
      given.raw(key).map(String::trim).filter(host -> !isLoopback(host)).ifPresent(host -> beyond.add(key + "=" + host));
    }
    String change = "(set PLAYLINE_BIND_HOST=0.0.0.0, with your own PLAYLINE_AUTH_SECRET, PLAYLINE_API_SECRET and "
        + "PLAYLINE_ADMIN_TOKEN, to change that)";
    return beyond.isEmpty()
        ? "  Listening on 127.0.0.1 only: other machines cannot connect " + change + "."
        : "  Player ports on 127.0.0.1 only " + change + "; listening beyond loopback as configured: "
            + String.join(", ", beyond) + ".";
  }

  /** Whether a configured bind host is a loopback name or address (an IP literal, never resolved). */
  private static boolean isLoopback(String host) {
    InetAddress literal = NetUtil.createInetAddressFromIpAddressString(host);
    return host.equalsIgnoreCase("localhost") || (literal != null && literal.isLoopbackAddress());
  }

  /**
   * The banner: how long the start took and whether the node is ready, its addresses and the
   * backends', who can connect ({@link #bindLine}), the development secrets' warnings, the demo,
   * and how to get a token and stop.
   */
  static String text(StandaloneConfig config, BackendEndpoints backends, Map<String, String> own, boolean devSecret,
      boolean devApiSecret, @Nullable DemoPage demo, Duration took, ConfigSource given, boolean ready) {
    StringBuilder b = new StringBuilder("\n");
    b.append("  Playline standalone is up in ").append(took.toMillis()).append(" ms (")
        .append(ready ? "ready" : "NOT ready: see /readyz").append(")\n");
    own.forEach((k, v) -> b.append(String.format("    %-10s %s%n", k, v)));
    b.append(String.format("    %-10s %s%n", "redis", backends.redisUri()));
    b.append(String.format("    %-10s %s%n", "kafka", backends.kafkaBootstrapServers()));
    b.append(String.format("    %-10s zookeeper %s:%d%n", "hbase", backends.hbaseZookeeperQuorum(),
        backends.hbaseZookeeperPort()));
    b.append("    data dir   ").append(config.dataDir()).append(" (endpoints in endpoints.json)\n");
    String bindLine = bindLine(given);
    if (bindLine != null) {
      b.append(bindLine).append('\n');
    }
    if (devSecret) {
      b.append("  WARNING: PLAYLINE_AUTH_SECRET is not set; tokens are signed with the public development secret.\n");
    }
    if (devApiSecret) {
      b.append("  WARNING: PLAYLINE_API_SECRET is not set; the internal API takes service tokens signed with the "
          + "public development key.\n");
    }
    if (demo != null) {
      b.append("  Demo web player: ").append(own.get("demo"))
          .append(demo.scriptBuilt() ? "" : " (its script was not built: that needs Node >= 18 and npm)").append("\n");
    }
    b.append("  Get a player token: bin/playline token --uid 42; a service token for the internal API: "
        + "bin/playline token --service NAME\n");
    b.append("  Stop with Ctrl-C (or SIGTERM).\n");
    return b.toString();
  }
}
