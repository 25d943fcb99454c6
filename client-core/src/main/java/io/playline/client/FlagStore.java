package io.playline.client;

import io.playline.client.internal.FileFlagStore;
import io.playline.client.internal.InMemoryFlagStore;
import java.nio.file.Path;

/**
 * Keeps the last first-today {@code flag_date} the gateway gave each user, so the client can echo
 * it in {@code Auth} and every {@code Heartbeat} and the gateway can skip its Redis check (docs/protocol.md).
 * Kept per uid: echoing one user's date for another would hide the other's first play of the day.
 *
 * <p>Called on the client's event loop: {@link #load} when a connection is authenticated (and
 * before a resume), {@link #store} only when the date changes (about once a day), so a small
 * synchronous file write is fine. Implementations shared by several clients must be thread-safe.
 */
public interface FlagStore {
  /** The last date stored for {@code uid}, or {@code ""} if none. */
  String load(long uid);

  /** Remembers {@code flagDate} ({@code YYYY-MM-DD}) for {@code uid}. */
  void store(long uid, String flagDate);

  /** A store that lives as long as the process (the default). Thread-safe. */
  static FlagStore inMemory() {
    return new InMemoryFlagStore();
  }

  /**
   * A store in {@code file} that survives restarts (desktop and TV apps): read once when created,
   * rewritten atomically (temporary file, then rename) on every change. Thread-safe.
   *
   * @throws java.io.UncheckedIOException when an existing file cannot be read
   */
  static FlagStore file(Path file) {
    return FileFlagStore.open(file);
  }
}
