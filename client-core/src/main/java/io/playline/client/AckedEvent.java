package io.playline.client;

import io.playline.proto.lite.v1.PlayEvent;
import java.util.Objects;

/** One reported event the gateway has written to Redis. Immutable (a value). */
public final class AckedEvent {
  private final PlayEvent event;
  private final boolean firstView;

  /**
   * @param event the event as sent (event time is the client clock at {@code report})
   * @param firstView whether it created the user's record of the item (first play, or first since a
   *     delete/clear or since it left the hot tier)
   */
  public AckedEvent(PlayEvent event, boolean firstView) {
    this.event = Objects.requireNonNull(event, "event");
    this.firstView = firstView;
  }

  /** The event as sent. */
  public PlayEvent event() {
    return event;
  }

  /** Whether it created the user's record of the item. */
  public boolean firstView() {
    return firstView;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof AckedEvent && event.equals(((AckedEvent) o).event) && firstView == ((AckedEvent) o).firstView;
  }

  @Override
  public int hashCode() {
    return 31 * event.hashCode() + Boolean.hashCode(firstView);
  }

  @Override
  public String toString() {
    return "AckedEvent[event=" + event + ", firstView=" + firstView + "]";
  }
}
