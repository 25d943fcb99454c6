package io.playline.core.query;

import io.playline.core.config.HBaseLayout;
import io.playline.proto.v1.Business;
import java.util.Arrays;
import java.util.Collection;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which entries a request may see at one moment: those of the requested businesses (all when none
 * is named) viewed no earlier than their business's retention ({@code history.retention.<business>},
 * else {@code history.retention}) before now. Immutable.
 */
final class RetentionFilter {
  private static final int BUSINESSES = 6;

  private final long nowMs;
  // Index = business number; Long.MAX_VALUE = filtered out.
  private final long[] oldest = new long[BUSINESSES + 1];
  private final Set<Integer> numbers;

  private RetentionFilter(HBaseLayout layout, Collection<Business> businesses, long nowMs) {
    this.nowMs = nowMs;
    Arrays.fill(oldest, Long.MAX_VALUE);
    Set<Integer> named = new TreeSet<>();
    for (Business b : businesses) {
      named.add(b.getNumber());
    }
    for (int n = 1; n <= BUSINESSES; n++) {
      if (named.isEmpty() || named.contains(n)) {
        oldest[n] = layout.oldestKeptMs(Business.forNumber(n), nowMs);
      }
    }
    this.numbers = named.size() == BUSINESSES ? Set.of() : Set.copyOf(named);
  }

  /** Entries of {@code businesses} (empty = all) kept at {@code nowMs}. */
  static RetentionFilter of(HBaseLayout layout, Collection<Business> businesses, long nowMs) {
    return new RetentionFilter(layout, businesses, nowMs);
  }

  long nowMs() {
    return nowMs;
  }

  /** The oldest view time kept per business number 1..6 (index 0 unused); MAX_VALUE = filtered out. */
  long[] oldestByBusiness() {
    return oldest.clone();
  }

  /** The business numbers asked for; empty = all. */
  Set<Integer> businessNumbers() {
    return numbers;
  }

  /** The oldest view time any visible business keeps: the lower bound of an HBase read. */
  long oldestOverall() {
    long min = Long.MAX_VALUE;
    for (int n = 1; n <= BUSINESSES; n++) {
      min = Math.min(min, oldest[n]);
    }
    return min;
  }

  boolean keeps(String member, long viewTimeMs) {
    int b = TimelinePosition.business(member);
    return b >= 1 && b <= BUSINESSES && viewTimeMs >= oldest[b];
  }

  boolean keeps(TimelineEntry e) {
    return keeps(e.member(), e.viewTimeMs());
  }
}
