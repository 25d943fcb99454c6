package io.playline.node.grpc;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.AttributeKey;
import io.playline.node.edge.AddressPrefixes;
import io.playline.node.edge.GiveWayLine;
import java.net.InetAddress;
import org.jspecify.annotations.Nullable;

/**
 * The connections of a gRPC server on which no call has yet carried a valid credential ({@link
 * #proven}), oldest first, so that a newcomer over the server's connection caps can take the place
 * of one: strangers without a credential (whose calls are refused, or who ask only the open health
 * service) cannot fill the port and keep the backends out. Over the address's cap the address's own
 * oldest stranger gives way; over the node's, the oldest stranger of the address holding the most
 * (so a health checker's one connection goes last). A connection that proved a credential is never
 * taken. Each choice is O(log n) in the strangers held ({@link GiveWayLine}). Thread-safe (one short
 * lock; a proven connection's later calls take no lock).
 */
final class StrangersGiveWay {
  private static final AttributeKey<Stranger> KEY = AttributeKey.valueOf(StrangersGiveWay.class, "stranger");

  /** One connection not yet proven: how to close it at once and its address's prefix (null: unknown). */
  static final class Stranger {
    final ChannelHandlerContext front;
    final @Nullable InetAddress prefix;
    final StrangersGiveWay owner;
    /** Its place in the line: strangers admitted before it. */
    final long admitted;
    /** Whether it is still in the line (guarded by the owner's line). */
    boolean waiting = true;
    volatile boolean proven;

    Stranger(ChannelHandlerContext front, @Nullable InetAddress prefix, StrangersGiveWay owner, long admitted) {
      this.front = front;
      this.prefix = prefix;
      this.owner = owner;
      this.admitted = admitted;
    }
  }

  /** Open connections not yet proven, by address, oldest first; the lock of everything here. */
  private final GiveWayLine<Stranger> line = new GiveWayLine<>();
  private long admissions;

  /**
   * Counts the connection of {@code front}, just admitted from {@code address}, as a stranger until
   * it is proven or closes.
   */
  void add(ChannelHandlerContext front, @Nullable InetAddress address) {
    Channel channel = front.channel();
    InetAddress prefix = address == null ? null : AddressPrefixes.DEFAULT.key(address);
    Stranger s;
    synchronized (line) {
      s = new Stranger(front, prefix, this, ++admissions);
      line.opened(prefix);
      line.mayGiveWay(prefix, s.admitted, s);
    }
    channel.attr(KEY).set(s);
    channel.closeFuture().addListener(f -> forget(s));
  }

  /** A call on {@code channel} carried a valid credential: it is no longer a stranger. */
  static void proven(Channel channel) {
    Stranger s = channel.attr(KEY).get();
    if (s != null && !s.proven) {
      s.proven = true;
      s.owner.forget(s);
    }
  }

  private void forget(Stranger s) {
    synchronized (line) {
      if (s.waiting) {
        s.waiting = false;
        line.closed(s.prefix, s.admitted);
      }
    }
  }

  /**
   * Takes a stranger out to make room for a newcomer from {@code address} (null: unknown): with
   * {@code sameAddress}, the oldest of that address's; otherwise the oldest of the address holding the
   * most strangers. Null when there is none; the caller closes the one returned.
   */
  @Nullable Stranger giveWay(@Nullable InetAddress address, boolean sameAddress) {
    InetAddress prefix = address == null ? null : AddressPrefixes.DEFAULT.key(address);
    synchronized (line) {
      Stranger victim = sameAddress ? line.takeFrom(prefix) : line.takeFromBusiest();
      if (victim != null) {
        victim.waiting = false;
      }
      return victim;
    }
  }
}
