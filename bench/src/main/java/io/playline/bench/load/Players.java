package io.playline.bench.load;

import org.jspecify.annotations.Nullable;

/** What a {@link Player} reports to its generator. Called on the player's event loop; thread-safe. */
interface Players {
  LoadSpec spec();

  LoadStats stats();

  /** What PAGE players ask instead of the first page of 20, or null. */
  @Nullable PageQueries queries();

  /** The flag date a new connection starts with (null: send none). */
  @Nullable String initialFlag();

  /** {@code p} authenticated: start pacing it. */
  void opened(Player p);

  /** {@code p} closed; {@code wasOpen} when it had authenticated; {@code code} as in {@link LoadSnapshot#closes()}. */
  void closed(Player p, boolean wasOpen, int code);
}
