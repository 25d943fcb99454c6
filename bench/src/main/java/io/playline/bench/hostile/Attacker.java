package io.playline.bench.hostile;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.AttributeKey;
import io.playline.time.Time;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One attack in progress: opens its connections from its own loopback source address
 * ({@code 127.0.<block>.<kind + 1>}), reopens those the node closes (after {@code reconnectDelay}, at most
 * {@link #MAX_RECONNECTS} times), and stops by itself after its time or its {@link
 * AttackTarget#maxOperations()}; {@link #close()} stops it early. A connection the node closed
 * counts as a refusal ({@code <label>close}).
 *
 * <p>Thread-safe: started and closed from the control thread; connections live on the event loops.
 */
public abstract class Attacker implements AutoCloseable {
  /** Reopened connections per attacker, at most (session churn is bounded by operations instead). */
  static final int MAX_RECONNECTS = 10_000;
  /** Pause before reconnecting after a connect failed (refused, or the node's backlog full). */
  private static final Duration FAILED_CONNECT_DELAY = Duration.ofMillis(200);
  private static final AttributeKey<Boolean> SELF_CLOSE = AttributeKey.valueOf("hostile.selfClose");

  final AttackTarget target;
  final AttackStats stats;
  private final EventLoopGroup group;
  private final boolean epoll;
  private final long deadlineNanos;
  private final InetSocketAddress local;
  private final Set<Channel> channels = ConcurrentHashMap.newKeySet();
  private final AtomicLong reconnects = new AtomicLong();
  private volatile boolean stopped;

  Attacker(AttackKind kind, AttackTarget target, EventLoopGroup group, boolean epoll, Duration length) {
    this.target = target;
    this.stats = new AttackStats(kind);
    this.group = group;
    this.epoll = epoll;
    this.deadlineNanos = Time.SYSTEM.nanoTime() + length.toNanos();
    try {
      InetAddress shared = target.shared();
      this.local = new InetSocketAddress(shared != null ? shared
          : InetAddress.getByAddress(new byte[] {127, 0, (byte) target.addressBlock(), (byte) (kind.ordinal() + 1)}), 0);
    } catch (UnknownHostException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Starts an attack of {@code kind} on {@code target} for at most {@code length}, its connections on
   * {@code group}.
   */
  public static Attacker start(AttackKind kind, AttackTarget target, EventLoopGroup group, boolean epoll,
      Duration length) {
    Attacker a = switch (kind) {
      case RAPID_RESET -> new RapidResetAttacker(target, group, epoll, length);
      case PING_FLOOD -> new PingFloodAttacker(target, group, epoll, length);
      case IDLE_H2 -> new IdleHttp2Attacker(target, group, epoll, length);
      case SLOWLORIS -> new SlowlorisAttacker(target, group, epoll, length);
      case TOMBSTONES, WRITE_FLOOD, SESSION_CHURN, MALFORMED, NEIGHBOURS ->
          new StreamAttacker(kind, target, group, epoll, length);
    };
    a.begin();
    return a;
  }

  public AttackStats stats() {
    return stats;
  }

  final EventLoopGroup group() {
    return group;
  }

  /** Opens the attack's first connections. */
  abstract void begin();

  /** Adds this attack's handlers to a new connection. */
  abstract void init(Channel ch, String label);

  /** True while the attack should go on: not stopped, within its time and operation bounds. */
  final boolean running() {
    return !stopped && Time.SYSTEM.nanoTime() < deadlineNanos && stats.sentCount() < target.maxOperations();
  }

  /** True while not stopped and within its time (cheaper than {@link #running()} for hot loops). */
  final boolean alive() {
    return !stopped && Time.SYSTEM.nanoTime() < deadlineNanos;
  }

  /** Opens one connection to {@code remote}; {@code label} prefixes its refusals. */
  final void open(InetSocketAddress remote, String label, boolean reopen, Duration reconnectDelay) {
    Bootstrap b = new Bootstrap().group(group)
        .channel(epoll ? EpollSocketChannel.class : NioSocketChannel.class)
        .option(ChannelOption.TCP_NODELAY, true)
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 5_000)
        .handler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            init(ch, label);
          }
        });
    configure(b);
    b.connect(remote, local).addListener(f -> {
      if (!f.isSuccess()) {
        stats.refused(label + "connect-failed");
        reopen(remote, label, reopen, FAILED_CONNECT_DELAY);
        return;
      }
      Channel ch = ((io.netty.channel.ChannelFuture) f).channel();
      long opened = Time.SYSTEM.nanoTime();
      channels.add(ch);
      stats.opened();
      ch.closeFuture().addListener(c -> {
        channels.remove(ch);
        stats.ended(Time.SYSTEM.nanoTime() - opened);
        if (!stopped && !Boolean.TRUE.equals(ch.attr(SELF_CLOSE).get())) {
          stats.refused(label + "close");
        }
        reopen(remote, label, reopen, reconnectDelay);
      });
      if (stopped) {
        ch.close();
      }
    });
  }

  /** Socket options of this attack's connections (none by default). */
  void configure(Bootstrap b) {}

  /** Closes {@code ch} as part of the attack (not a refusal). */
  static void closeSelf(Channel ch) {
    ch.attr(SELF_CLOSE).set(true);
    ch.close();
  }

  private void reopen(InetSocketAddress remote, String label, boolean reopen, Duration delay) {
    if (!reopen || !running() || reconnects.incrementAndGet() > MAX_RECONNECTS && !churns(stats.kind())) {
      return;
    }
    if (delay.isZero()) {
      open(remote, label, true, delay);
    } else {
      group.schedule(() -> open(remote, label, true, delay), delay.toNanos(), TimeUnit.NANOSECONDS);
    }
  }

  /** Kinds that reconnect by design, without the reconnect bound. */
  private static boolean churns(AttackKind kind) {
    return kind == AttackKind.SESSION_CHURN || kind == AttackKind.MALFORMED || kind == AttackKind.NEIGHBOURS;
  }

  /** Stops the attack and closes its connections (bounded: 5 s). */
  @Override
  public void close() {
    stopped = true;
    for (Channel ch : channels) {
      ch.attr(SELF_CLOSE).set(true);
      ch.close();
    }
    long end = Time.SYSTEM.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (!channels.isEmpty() && Time.SYSTEM.nanoTime() < end) {
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
