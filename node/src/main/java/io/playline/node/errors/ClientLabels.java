package io.playline.node.errors;

import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * Bounds the labels a client names itself with, {@code device_id} and {@code platform}: both are
 * copied into every record, Kafka message and HBase cell of that client, so their length is capped
 * ({@code device.id.max.bytes}, {@code platform.max.bytes}) where they enter: at auth and in a
 * {@code Report}. At auth {@code device_id} is also required (sessions, pushes and the per-user
 * session cap are keyed by it); a {@code Report} may omit it (server-side reports).
 */
public final class ClientLabels {
  private ClientLabels() {}

  /** What is wrong with the labels (client-safe), or null when both fit. */
  public static @Nullable String problem(String deviceId, String platform, int maxDeviceIdBytes, int maxPlatformBytes) {
    String device = tooLong("device_id", deviceId, maxDeviceIdBytes);
    return device != null ? device : tooLong("platform", platform, maxPlatformBytes);
  }

  /** As {@link #problem}, for an {@code Auth}: an empty {@code device_id} is a problem too. */
  public static @Nullable String authProblem(String deviceId, String platform, int maxDeviceIdBytes,
      int maxPlatformBytes) {
    if (deviceId.isEmpty()) {
      return "device_id: required (expected: a stable id of this installation, 1.." + maxDeviceIdBytes + " bytes)";
    }
    return problem(deviceId, platform, maxDeviceIdBytes, maxPlatformBytes);
  }

  private static @Nullable String tooLong(String field, String value, int max) {
    // A char is at most 3 UTF-8 bytes: short strings need no encoding.
    if (value.length() * 3 <= max) {
      return null;
    }
    int bytes = value.getBytes(StandardCharsets.UTF_8).length;
    return bytes <= max ? null : field + ": " + bytes + " bytes (expected: at most " + max + ")";
  }
}
