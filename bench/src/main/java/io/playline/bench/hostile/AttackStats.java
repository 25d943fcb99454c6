package io.playline.bench.hostile;

import io.playline.time.Time;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * What one attacker did and what the node did about it: operations sent and accepted, connections
 * opened, closed by the node and still open, refusals by reason ({@code goaway}, {@code close},
 * {@code RATE_LIMITED}, ...) and the time from the attack's start to the first refusal — how fast it
 * was cut off or throttled. Thread-safe (updated from event loops, read by the control thread).
 */
public final class AttackStats {
  private final AttackKind kind;
  private final long startNanos = Time.SYSTEM.nanoTime();
  private final LongAdder sent = new LongAdder();
  private final LongAdder accepted = new LongAdder();
  private final LongAdder connects = new LongAdder();
  private final AtomicInteger open = new AtomicInteger();
  private final AtomicLong firstRefusal = new AtomicLong(-1);
  private final AtomicLong longestOpenNanos = new AtomicLong();
  private final Map<String, LongAdder> refusals = new ConcurrentHashMap<>();

  AttackStats(AttackKind kind) {
    this.kind = kind;
  }

  public AttackKind kind() {
    return kind;
  }

  void sent(long n) {
    sent.add(n);
  }

  long sentCount() {
    return sent.sum();
  }

  void accepted() {
    accepted.increment();
  }

  void opened() {
    connects.increment();
    open.incrementAndGet();
  }

  /** A connection this attacker opened ended after {@code lifeNanos}. */
  void ended(long lifeNanos) {
    open.decrementAndGet();
    longestOpenNanos.accumulateAndGet(lifeNanos, Math::max);
  }

  /** The node refused something: closed a connection, sent GOAWAY, answered RATE_LIMITED, ... */
  void refused(String reason) {
    refused(reason, Time.SYSTEM.nanoTime());
  }

  /**
   * The node refused a request sent at {@code sentAtNanos} ({@link Time#nanoTime}): the attack
   * counts as cut off from then, however long the node held the answer back (an authentication over
   * its user's budget is answered after {@code user.auth.refusal.hold}, which is what throttles it).
   */
  void refused(String reason, long sentAtNanos) {
    refusals.computeIfAbsent(reason, r -> new LongAdder()).increment();
    firstRefusal.compareAndSet(-1, Math.max(0, sentAtNanos - startNanos));
  }

  /** An immutable copy, with {@code stillOpenLifeNanos} the age of connections still open now. */
  public Snapshot snapshot() {
    Map<String, Long> r = new TreeMap<>();
    refusals.forEach((k, v) -> r.put(k, v.sum()));
    long now = Time.SYSTEM.nanoTime() - startNanos;
    long longest = open.get() > 0 ? now : longestOpenNanos.get();
    return new Snapshot(kind, now, sent.sum(), accepted.sum(), connects.sum(), open.get(), firstRefusal.get(),
        longest, Map.copyOf(r));
  }

  /**
   * @param kind the attack
   * @param elapsedNanos since the attack started
   * @param sent operations sent (streams, pings, bytes, frames, cycles)
   * @param accepted operations the node answered as successful (acks, Done, AuthOk)
   * @param connects connections opened
   * @param open connections still open
   * @param firstRefusalNanos from the start to the first refusal, -1 when none
   * @param longestOpenNanos the longest a connection stayed open (up to now when one still is)
   * @param refusals by reason
   */
  public record Snapshot(AttackKind kind, long elapsedNanos, long sent, long accepted, long connects, int open,
      long firstRefusalNanos, long longestOpenNanos, Map<String, Long> refusals) {

    public long refusalTotal() {
      return refusals.values().stream().mapToLong(Long::longValue).sum();
    }
  }
}
