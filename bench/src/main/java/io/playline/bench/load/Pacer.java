package io.playline.bench.load;

import io.netty.channel.EventLoop;
import io.playline.time.Time;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;

/**
 * Paces the heartbeats of the players on one event loop, in one of two ways:
 *
 * <ul>
 *   <li><b>rate</b>: every millisecond the loop earns {@code perPlayerRate x open players} credits
 *       and spends them round robin, so the offered rate is exact and each player's own rate is
 *       even. A heartbeat's intended time is interpolated within the tick, so a late tick (an
 *       overloaded loop) shows up as latency instead of vanishing;
 *   <li><b>interval</b>: each player heartbeats on its own timer every {@code [min, max]} ms
 *       (uniformly random), the first one at a random point of the first interval.
 * </ul>
 *
 * <p>Confined to its event loop, except {@link #perPlayerRate}, which the generator supplies.
 */
final class Pacer {
  private static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
  /** Credits never pile up beyond a second's worth: a stalled loop does not fire a huge burst. */
  private static final double MAX_CREDIT_SECONDS = 1.0;

  private final EventLoop loop;
  private final DoubleSupplier perPlayerRate;
  private final long intervalMinNanos;
  private final long intervalMaxNanos;
  private final List<Player> players = new ArrayList<>();
  private int cursor;
  private double credit;
  private long lastTick;

  Pacer(EventLoop loop, DoubleSupplier perPlayerRate, long intervalMinMs, long intervalMaxMs) {
    this.loop = loop;
    this.perPlayerRate = perPlayerRate;
    this.intervalMinNanos = TimeUnit.MILLISECONDS.toNanos(intervalMinMs);
    this.intervalMaxNanos = TimeUnit.MILLISECONDS.toNanos(intervalMaxMs);
  }

  /** Starts the rate ticks (rate pacing only). Any thread. */
  void start() {
    if (intervalMinNanos == 0) {
      loop.execute(() -> {
        lastTick = Time.SYSTEM.nanoTime();
        loop.scheduleAtFixedRate(this::tick, TICK_NANOS, TICK_NANOS, TimeUnit.NANOSECONDS);
      });
    }
  }

  /** A player on this loop authenticated. */
  void add(Player p) {
    if (intervalMinNanos > 0) {
      long first = ThreadLocalRandom.current().nextLong(Math.max(1, intervalMaxNanos));
      scheduleInterval(p, Time.SYSTEM.nanoTime() + first);
    } else {
      players.add(p);
    }
  }

  private void scheduleInterval(Player p, long intendedNanos) {
    loop.schedule(() -> {
      if (!p.isOpen()) {
        return;
      }
      p.heartbeat(intendedNanos);
      long next = intervalMinNanos == intervalMaxNanos ? intervalMinNanos
          : ThreadLocalRandom.current().nextLong(intervalMinNanos, intervalMaxNanos + 1);
      scheduleInterval(p, intendedNanos + next);
    }, Math.max(0, intendedNanos - Time.SYSTEM.nanoTime()), TimeUnit.NANOSECONDS);
  }

  private void tick() {
    long now = Time.SYSTEM.nanoTime();
    long elapsed = now - lastTick;
    long from = lastTick;
    lastTick = now;
    double rate = perPlayerRate.getAsDouble() * players.size();
    if (rate <= 0) {
      credit = 0;
      return;
    }
    credit = Math.min(credit + rate * elapsed / 1e9, Math.max(1, rate * MAX_CREDIT_SECONDS));
    int due = (int) credit;
    credit -= due;
    for (int k = 0; k < due && !players.isEmpty(); k++) {
      if (cursor >= players.size()) {
        cursor = 0;
      }
      Player p = players.get(cursor);
      if (!p.isOpen()) {
        players.set(cursor, players.get(players.size() - 1));
        players.remove(players.size() - 1);
        k--;
        continue;
      }
      cursor++;
      p.heartbeat(from + (k + 1) * elapsed / due);
    }
  }
}
