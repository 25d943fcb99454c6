package io.playline.bench.hostile;

import java.util.Locale;

/** The attacks of issue 28, one per resource a client can make the node spend. */
public enum AttackKind {
  /** HTTP/2 HEADERS for {@code Gateway/Connect} then RST_STREAM, as fast as the socket takes them. */
  RAPID_RESET,
  /** WebSocket upgrade, then ping frames, never reading (pongs pile up on the node). */
  PING_FLOOD,
  /** HTTP/2 connections that send the preface and SETTINGS and open no stream. */
  IDLE_H2,
  /** One header byte every few seconds on the WebSocket upgrade and on the admin port. */
  SLOWLORIS,
  /** One account deleting never-played items as fast as the stream allows. */
  TOMBSTONES,
  /** One account on 16 connections sending heartbeats with many events as fast as allowed. */
  WRITE_FLOOD,
  /** Connect, Auth and close, over and over, with one token. */
  SESSION_CHURN,
  /**
   * One buggy device: a WebSocket that sends a frame that is no {@code ClientFrame} before
   * authenticating, once a second (each is closed; the next connection comes a second later).
   */
  MALFORMED,
  /**
   * Not an attack: honest players reconnecting behind the attackers' address (with {@code
   * --shared-address}): K loops of connect, {@code Auth} as a user of their own, one heartbeat, its
   * ack, close; every completed loop counts as an admitted connect, every other end as a refused one.
   */
  NEIGHBOURS;

  /** Whether this kind is honest players measured beside the attacks, not an attack. */
  public boolean honest() {
    return this == NEIGHBOURS;
  }

  /** The name on the command line, e.g. {@code rapid-reset}. */
  public String cliName() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /** Parses {@link #cliName()}. */
  public static AttackKind parse(String s) {
    for (AttackKind k : values()) {
      if (k.cliName().equals(s)) {
        return k;
      }
    }
    throw new IllegalArgumentException("attack " + s + " (expected one of: rapid-reset, ping-flood, idle-h2, "
        + "slowloris, tombstones, write-flood, session-churn, malformed, neighbours)");
  }
}
