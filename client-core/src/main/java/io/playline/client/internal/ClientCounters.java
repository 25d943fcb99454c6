package io.playline.client.internal;

import io.playline.client.ClientStats;
import java.util.concurrent.atomic.AtomicLong;

/** The counters behind {@link ClientStats}: written on the client's loop, read from anywhere. Thread-safe. */
public final class ClientCounters {
  final AtomicLong eventsReported = new AtomicLong();
  final AtomicLong eventsAcked = new AtomicLong();
  final AtomicLong eventsDropped = new AtomicLong();
  final AtomicLong eventsResent = new AtomicLong();
  final AtomicLong connections = new AtomicLong();
  final AtomicLong tokenFetches = new AtomicLong();
  final AtomicLong sessionResumes = new AtomicLong();
  final AtomicLong tokenRefreshes = new AtomicLong();

  /** A snapshot of every counter. */
  public ClientStats snapshot() {
    return new ClientStats(eventsReported.get(), eventsAcked.get(), eventsDropped.get(), eventsResent.get(),
        connections.get(), tokenFetches.get(), sessionResumes.get(), tokenRefreshes.get());
  }
}
