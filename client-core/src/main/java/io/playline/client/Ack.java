package io.playline.client;

import java.util.List;

/**
 * A heartbeat the gateway acknowledged: its events are durable in Redis. Immutable.
 *
 * @param events the heartbeat's events in the order sent, each with its {@code first_view}; empty
 *     for a keep-alive
 * @param flagDate the gateway's first-today date ({@code YYYY-MM-DD}) once the user is known to be
 *     counted today, else empty
 * @param firstToday whether this heartbeat counted the user first today (true once per user per
 *     day across all devices)
 */
public record Ack(List<AckedEvent> events, String flagDate, boolean firstToday) {
  public Ack {
    events = List.copyOf(events);
  }
}
