package io.playline.node.grpc;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.AttributeKey;
import io.playline.node.edge.AddressPrefixes;
import java.net.InetAddress;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The connections of a gRPC server on which no call has yet carried a valid credential ({@link
 * #proven}), oldest first, so that a newcomer over the server's connection caps can take the place
 * of one: strangers without a credential (whose calls are refused, or who ask only the open health
 * service) cannot fill the port and keep the backends out. Over the address's cap the address's own
 * oldest stranger gives way; over the node's, the oldest stranger of the address holding the most
 * (so a health checker's one connection goes last). A connection that proved a credential is never
 * taken. Thread-safe (one short lock; a proven connection's later calls take no lock).
 */
final class StrangersGiveWay {
  private static final AttributeKey<Stranger> KEY = AttributeKey.valueOf(StrangersGiveWay.class, "stranger");

  /** One connection not yet proven: how to close it at once and its address's prefix (null: unknown). */
  static final class Stranger {
    final ChannelHandlerContext front;
    final @Nullable InetAddress prefix;
    final StrangersGiveWay owner;
    volatile boolean proven;

    Stranger(ChannelHandlerContext front, @Nullable InetAddress prefix, StrangersGiveWay owner) {
      this.front = front;
      this.prefix = prefix;
      this.owner = owner;
    }
  }

  /** Open connections not yet proven, oldest first. */
  private final LinkedHashMap<Channel, Stranger> strangers = new LinkedHashMap<>();

  /**
   * Counts the connection of {@code front}, just admitted from {@code address}, as a stranger until
   * it is proven or closes.
   */
  void add(ChannelHandlerContext front, @Nullable InetAddress address) {
    Channel channel = front.channel();
    Stranger s = new Stranger(front, address == null ? null : AddressPrefixes.DEFAULT.key(address), this);
    channel.attr(KEY).set(s);
    synchronized (strangers) {
      strangers.put(channel, s);
    }
    channel.closeFuture().addListener(f -> forget(channel));
  }

  /** A call on {@code channel} carried a valid credential: it is no longer a stranger. */
  static void proven(Channel channel) {
    Stranger s = channel.attr(KEY).get();
    if (s != null && !s.proven) {
      s.proven = true;
      s.owner.forget(channel);
    }
  }

  private void forget(Channel channel) {
    synchronized (strangers) {
      strangers.remove(channel);
    }
  }

  /**
   * Takes a stranger out to make room for a newcomer from {@code address} (null: unknown): with
   * {@code sameAddress}, the oldest of that address's; otherwise the oldest of the address holding the
   * most strangers. Null when there is none; the caller closes the one returned.
   */
  @Nullable Stranger giveWay(@Nullable InetAddress address, boolean sameAddress) {
    InetAddress prefix = address == null ? null : AddressPrefixes.DEFAULT.key(address);
    synchronized (strangers) {
      @Nullable Stranger victim = null;
      if (sameAddress) {
        for (Stranger s : strangers.values()) {
          if (Objects.equals(s.prefix, prefix)) {
            victim = s;
            break;
          }
        }
      } else {
        Map<@Nullable InetAddress, Integer> held = new HashMap<>();
        for (Stranger s : strangers.values()) {
          held.merge(s.prefix, 1, Integer::sum);
        }
        int most = 0;
        for (Stranger s : strangers.values()) {
          int n = held.get(s.prefix);
          if (n > most) {
            victim = s;
            most = n;
          }
        }
      }
      if (victim != null) {
        strangers.remove(victim.front.channel());
      }
      return victim;
    }
  }
}
