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
 * {@code RATE_LIMITED}, ...) and the time from the attacker's first request to the first refusal —
 * how fast it was cut off or throttled once it attacked (not counting how long the attacker took to
 * connect and start, which under its CPU quota beside the other attackers can be seconds). Thread-safe
 * (updated from event loops, read by the control thread).
 */
public final class AttackStats {
  private final AttackKind kind;
  private final Time time;
  private final long startNanos;
  private final LongAdder sent = new LongAdder();
  private final LongAdder accepted = new LongAdder();
  private final LongAdder connects = new LongAdder();
  private final AtomicInteger open = new AtomicInteger();
  private final AtomicLong firstSent = new AtomicLong(-1);
  private final AtomicLong firstRefusal = new AtomicLong(-1);
  private final AtomicLong longestOpenNanos = new AtomicLong();
  private final Map<String, LongAdder> refusals = new ConcurrentHashMap<>();

  AttackStats(AttackKind kind) {
    this(kind, Time.SYSTEM);
  }

  AttackStats(AttackKind kind, Time time) {
    this.kind = kind;
    this.time = time;
    this.startNanos = time.nanoTime();
  }

  public AttackKind kind() {
    return kind;
  }

  void sent(long n) {
    if (n > 0 && firstSent.get() < 0) {
      firstSent.compareAndSet(-1, time.nanoTime());
    }
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
    refused(reason, time.nanoTime());
  }

  /**
   * The node refused a request sent at {@code sentAtNanos} ({@link Time#nanoTime}): the attack
   * counts as cut off from then, however long the node held the answer back (an authentication over
   * its user's budget is answered after {@code user.auth.refusal.hold}, which is what throttles it).
   */
  void refused(String reason, long sentAtNanos) {
    refusals.computeIfAbsent(reason, r -> new LongAdder()).increment();
    long attacking = firstSent.get();
    firstRefusal.compareAndSet(-1, Math.max(0, sentAtNanos - (attacking < 0 ? startNanos : attacking)));
  }

  /** An immutable copy, with {@code stillOpenLifeNanos} the age of connections still open now. */
  public Snapshot snapshot() {
    Map<String, Long> r = new TreeMap<>();
    refusals.forEach((k, v) -> r.put(k, v.sum()));
    long now = time.nanoTime() - startNanos;
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
   * @param firstRefusalNanos from the first request (or the start, when the node refused before any)
   *     to the first refusal, -1 when none
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
