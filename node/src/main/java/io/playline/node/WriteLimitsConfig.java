package io.playline.node;

import io.playline.core.config.ConfigSource;

/**
 * How much one submission to the write path (a player's heartbeat, an internal API {@code Report})
 * may carry; ranges: {@link RequestSettings}, defaults in docs/configuration.md.
 *
 * @param maxEvents events in one submission ({@code heartbeat.max.events})
 * @param maxDeviceIdBytes longest {@code device_id}, UTF-8 bytes ({@code device.id.max.bytes})
 * @param maxPlatformBytes longest {@code platform}, UTF-8 bytes ({@code platform.max.bytes})
 */
public record WriteLimitsConfig(int maxEvents, int maxDeviceIdBytes, int maxPlatformBytes) {

  public static WriteLimitsConfig from(ConfigSource c) {
    return new WriteLimitsConfig(RequestSettings.MAX_EVENTS.read(c), RequestSettings.DEVICE_ID_MAX_BYTES.read(c),
        RequestSettings.PLATFORM_MAX_BYTES.read(c));
  }
}
