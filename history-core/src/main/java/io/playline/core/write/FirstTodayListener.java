package io.playline.core.write;

/**
 * Told when a user is counted for the first time on a day (for the reward systems' Kafka topic).
 * Called on I/O threads: implementations must not block.
 */
@FunctionalInterface
public interface FirstTodayListener {
  void firstToday(long uid, String day, String deviceId, String platform, long timeMs);

  FirstTodayListener NONE = (uid, day, deviceId, platform, timeMs) -> { };
}
