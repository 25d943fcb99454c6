package io.playline.node;

import io.playline.core.config.Setting;
import io.playline.core.config.SettingsCatalogue;
import java.time.Duration;
import java.util.List;

/**
 * What the player edge and the internal API both check in a request: the clock skew tolerated in a
 * token, and how much one heartbeat or {@code Report} may carry ({@link WriteLimitsConfig}).
 */
public final class RequestSettings {
  public static final Setting<Duration> CLOCK_SKEW = Setting.duration("auth.clock.skew", Duration.ofSeconds(30),
      Duration.ZERO, Duration.ofMinutes(10), "leeway when checking a player or service token's `exp`, `nbf` and `iat`");
  public static final Setting<Integer> MAX_EVENTS = Setting.intValue("heartbeat.max.events", 100, 1, 10_000,
      "events in one heartbeat (or `Report`): more is `INVALID_ARGUMENT`, the connection stays open");
  public static final Setting<Integer> DEVICE_ID_MAX_BYTES = Setting.intValue("device.id.max.bytes", 64, 1, 1024,
      "longest `device_id` (UTF-8 bytes; copied into every record, Kafka message and HBase cell): "
          + "`INVALID_ARGUMENT` at auth, close 4002; a `Report` gets gRPC `INVALID_ARGUMENT`");
  public static final Setting<Integer> PLATFORM_MAX_BYTES = Setting.intValue("platform.max.bytes", 32, 1, 1024,
      "longest `platform` (UTF-8 bytes), refused as `device_id` is");

  public static final SettingsCatalogue CATALOGUE = new SettingsCatalogue(
      "Requests: token clock and write sizes (players and the internal API)",
      List.of(CLOCK_SKEW, MAX_EVENTS, DEVICE_ID_MAX_BYTES, PLATFORM_MAX_BYTES));

  private RequestSettings() {}
}
