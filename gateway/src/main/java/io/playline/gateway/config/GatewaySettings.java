package io.playline.gateway.config;

import io.playline.core.config.Setting;
import io.playline.core.config.SettingsCatalogue;
import java.time.Duration;
import java.util.List;

/**
 * The player edge's ports and how a gateway drains; node-wide keys are in {@code
 * io.playline.node.settings.NodeSettings}, the internal API's port in {@code io.playline.api.config.ApiSettings}.
 */
public final class GatewaySettings {
  public static final Setting<Integer> WS_PORT = Setting.port("ws.port", 8080, true,
      "the players' WebSocket port (`/v1/stream`)");
  public static final Setting<Integer> GRPC_PORT = Setting.port("grpc.port", 9090, true, "the players' gRPC port");
  public static final Setting<Duration> DRAIN_GRACE = Setting.duration("drain.grace", Duration.ofSeconds(10),
      Duration.ZERO, Duration.ofMinutes(10), "on SIGTERM a gateway stops accepting, sends every connection "
          + "`Reconnect{after_ms}`, waits up to this for them to leave, then closes the rest with `DRAINING` (4013)");
  public static final Setting<Duration> DRAIN_RECONNECT_SPREAD = Setting.duration("drain.reconnect.spread",
      Duration.ofSeconds(5), Duration.ZERO, Duration.ofMinutes(10), "`after_ms` is random within this, so clients "
          + "do not all arrive at the other nodes at once");

  public static final SettingsCatalogue CATALOGUE = new SettingsCatalogue("Gateway listeners", List.of(
      WS_PORT, GRPC_PORT, DRAIN_GRACE, DRAIN_RECONNECT_SPREAD));

  private GatewaySettings() {}
}
