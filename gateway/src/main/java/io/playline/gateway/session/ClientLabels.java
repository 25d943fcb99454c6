package io.playline.gateway.session;

import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * Bounds the labels a client names itself with, {@code device_id} and {@code platform}: both are
 * copied into every record, Kafka message and HBase cell of that client, so their length is capped
 * ({@code device.id.max.bytes}, {@code platform.max.bytes}) where they enter: at auth and in a
 * {@code Report}.
 */
public final class ClientLabels {
  private ClientLabels() {}

  /** What is wrong with the labels (client-safe), or null when both fit. */
  public static @Nullable String problem(String deviceId, String platform, int maxDeviceIdBytes, int maxPlatformBytes) {
    String device = tooLong("device_id", deviceId, maxDeviceIdBytes);
    return device != null ? device : tooLong("platform", platform, maxPlatformBytes);
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
