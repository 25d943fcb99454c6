package io.playline.client;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * A heartbeat the gateway acknowledged: its events are durable in Redis. Immutable (a value: equal
 * when its parts are).
 */
public final class Ack {
  private final List<AckedEvent> events;
  private final String flagDate;
  private final boolean firstToday;

  /**
   * @param events the heartbeat's events in the order sent, each with its {@code first_view}; empty
   *     for a keep-alive
   * @param flagDate the gateway's first-today date ({@code YYYY-MM-DD}) once the user is known to be
   *     counted today, else empty
   * @param firstToday whether this heartbeat counted the user first today (true once per user per
   *     day across all devices)
   */
  public Ack(List<AckedEvent> events, String flagDate, boolean firstToday) {
    this.events = Collections.unmodifiableList(new ArrayList<>(events));
    this.flagDate = Objects.requireNonNull(flagDate, "flagDate");
    this.firstToday = firstToday;
  }

  /** The heartbeat's events in the order sent; empty for a keep-alive. */
  public List<AckedEvent> events() {
    return events;
  }

  /** The first-today date once the user is known to be counted today, else empty. */
  public String flagDate() {
    return flagDate;
  }

  /** Whether this heartbeat counted the user first today. */
  public boolean firstToday() {
    return firstToday;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof Ack)) {
      return false;
    }
    Ack a = (Ack) o;
    return events.equals(a.events) && flagDate.equals(a.flagDate) && firstToday == a.firstToday;
  }

  @Override
  public int hashCode() {
    return Objects.hash(events, flagDate, firstToday);
  }

  @Override
  public String toString() {
    return "Ack[events=" + events + ", flagDate=" + flagDate + ", firstToday=" + firstToday + "]";
  }
}
