package io.playline.core.write;

import java.util.List;

/**
 * Everything one round trip to Redis carries: user writes and first-today checks.
 *
 * @param nowMs the node's time the batch was stamped with (the first-today day and event time)
 * @param day the first-today day as {@code yyyymmdd}
 * @param expiryMs how long a new first-today bitmap of that day lives
 * @param writes user writes, applied in order
 * @param firstTodays users whose first-today bit to check and set, with the event each would publish
 */
public record WriteBatch(long nowMs, String day, long expiryMs, List<UserWrite> writes, List<FirstTodayCheck> firstTodays) {
  public WriteBatch {
    writes = List.copyOf(writes);
    firstTodays = List.copyOf(firstTodays);
  }
}
