package io.playline.client.internal;

/**
 * Frame sequence numbers of one client: 1, 2, 3… across all its connections, so an answer is
 * never confused with the server-initiated seq 0 nor with a frame of an earlier connection.
 * Confined to the client's loop.
 */
final class Seqs {
  private long last;

  long next() {
    return ++last;
  }
}
