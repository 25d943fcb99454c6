package io.playline.node.edge;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import io.playline.time.Time;
import java.net.InetAddress;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether a player connection has authenticated as a player, and, for a connection admitted on
 * probation ({@link AddressBudgets#admit}: over its address's new-connection rate, or during the
 * address's abuse penalty), the deadline by which it must: at {@code
 * connection.abuse.probation.timeout} after connecting, a connection not yet {@link #authenticated}
 * is closed and counted as {@code playline.connections.refused{reason=rate|penalty}}. A connection that
 * authenticated is a player's: cut for abuse, it is never charged to its address ({@link
 * AddressBudgets#abused}). Kept on the channel; {@link #authenticated} may be called from any
 * thread (a gRPC stream's), the deadline runs on the channel's event loop.
 */
public final class Probation {
  private static final Logger log = LoggerFactory.getLogger(Probation.class);
  private static final AttributeKey<Probation> KEY = AttributeKey.valueOf(Probation.class, "probation");

  private volatile boolean player;
  private volatile @Nullable ScheduledFuture<?> deadline;

  private Probation() {}

  /**
   * Starts tracking {@code channel} (admitted from {@code address} as {@code admission} says); when
   * it was admitted on probation, arms the deadline, which passes by {@code time}.
   */
  public static void track(Channel channel, AddressBudgets budgets, InetAddress address,
      AddressBudgets.Transport transport, AddressBudgets.Admission admission, Time time) {
    Probation p = new Probation();
    Duration timeout = budgets.probationTimeout();
    channel.attr(KEY).set(p);
    if (admission != AddressBudgets.Admission.FREE) {
      p.deadline = time.schedule(channel.eventLoop(), () -> {
        if (!p.player && channel.isOpen()) {
          budgets.probationFailed(address, transport, admission);
          log.debug("Closing {}: on probation ({}) and not authenticated within connection.abuse.probation.timeout {}",
              address, admission, timeout);
          UnprovenHold.closeNow(channel);
        }
      }, timeout.toNanos(), TimeUnit.NANOSECONDS);
      channel.closeFuture().addListener(f -> p.disarm());
    }
  }

  /** {@code channel} authenticated as a player: it is a player's from now on, its probation (if any) passed. */
  public static void authenticated(Channel channel) {
    Probation p = channel.attr(KEY).get();
    if (p != null) {
      p.player = true;
      p.disarm();
    }
  }

  /** Whether {@code channel} authenticated as a player. */
  public static boolean isPlayer(Channel channel) {
    Probation p = channel.attr(KEY).get();
    return p != null && p.player;
  }

  private void disarm() {
    ScheduledFuture<?> d = deadline;
    if (d != null) {
      d.cancel(false);
    }
  }
}
