package io.playline.core.write;

import io.playline.proto.v1.FirstTodayEvent;

/**
 * One first-today check of a {@link WriteBatch}: the user, and the connection (or Report) that
 * would count the user, which the day's event names. Immutable.
 *
 * @param uid the user (> 0)
 * @param deviceId the connection's device id; may be empty
 * @param platform the connection's platform; may be empty
 */
public record FirstTodayCheck(long uid, String deviceId, String platform) {
  public FirstTodayCheck {
    if (uid <= 0) {
      throw new IllegalArgumentException("uid: " + uid + " (expected: > 0)");
    }
  }

  /** A check without a device or platform (tools, tests). */
  public static FirstTodayCheck of(long uid) {
    return new FirstTodayCheck(uid, "", "");
  }

  /**
   * The event this check publishes when it counts the user on {@code isoDay} at {@code timeMs}.
   * The one place events are built: the writer stores its bytes in the outbox and the publisher
   * removes the outbox entry by the same bytes, so both must build it alike.
   */
  public FirstTodayEvent event(String isoDay, long timeMs) {
    return FirstTodayEvent.newBuilder().setUid(uid).setDay(isoDay).setDeviceId(deviceId).setPlatform(platform)
        .setTimeMs(timeMs).build();
  }

  /** {@code yyyymmdd} as ISO {@code yyyy-mm-dd}. */
  public static String isoDay(String compactDay) {
    if (compactDay.length() != 8) {
      throw new IllegalArgumentException("day: '" + compactDay + "' (expected: yyyymmdd)");
    }
    return compactDay.substring(0, 4) + "-" + compactDay.substring(4, 6) + "-" + compactDay.substring(6);
  }
}
