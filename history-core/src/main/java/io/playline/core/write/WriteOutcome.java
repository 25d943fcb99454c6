package io.playline.core.write;

/**
 * What happened to one {@link UserWrite}.
 *
 * @param paused the user paused recording: nothing was stored
 * @param codes per record: {@link #LOST}, {@link #UPDATED} or {@link #CREATED}
 */
public record WriteOutcome(boolean paused, byte[] codes) {
  /** Older than the stored record, or not after a delete/clear tombstone. */
  public static final byte LOST = 0;
  /** Replaced the stored record. */
  public static final byte UPDATED = 1;
  /** Created the record: the user's first of that item (as far as Redis knows). */
  public static final byte CREATED = 2;

  public boolean firstView(int i) {
    return codes[i] == CREATED;
  }

  public boolean applied(int i) {
    return codes[i] != LOST;
  }
}
