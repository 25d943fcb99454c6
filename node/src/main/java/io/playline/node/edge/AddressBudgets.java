package io.playline.node.edge;

import io.micrometer.core.instrument.MeterRegistry;
import io.playline.time.Time;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * What one client address ({@link AddressPrefixes}: an IPv4 /32, an IPv6 /64 by default) may make
 * the player ports spend on new connections, both transports together, without ever refusing the
 * players behind it: an address is shared by a household, a campus or thousands behind a carrier's
 * NAT, and one of them misbehaving must not keep the others out.
 *
 * <p>New connections: a token bucket per address ({@code connection.max.new.per.address.per.second},
 * burst {@code connection.max.new.per.address.burst}), asked at accept, before TLS or HTTP/2 (behind
 * a PROXY header, for the header's address). A connection within it is admitted freely; one over it
 * is admitted <em>on probation</em> ({@link Admission#OVER_RATE}): it must authenticate as a player
 * within {@code connection.abuse.probation.timeout} ({@link Probation}) or is closed ({@code
 * playline.connections.refused{reason=rate}}). So a reconnect storm or a session churn from one
 * address buys strangers nothing past the rate, while the address's players — whose token proves who
 * they are, and whose own budgets ({@code user.max.auths.per.minute}, {@code connection.max.per.user})
 * then apply — keep connecting. What one address's strangers hold at once is bounded by the probation
 * deadline, the unproven cap below and {@code connection.max.per.address}.
 *
 * <p>Abuse is punished where it happened: a connection cut for abuse ({@link #abused}) is closed,
 * and only it. Its address is charged a strike only when the connection had not authenticated as
 * a player (a stranger's); {@code connection.abuse.strikes} strikes within {@code
 * connection.abuse.window} put the address on probation for {@code connection.abuse.penalty}
 * (doubling for a repeat offender up to {@code connection.abuse.penalty.max}): every new connection
 * of it is admitted on probation ({@link Admission#PENALTY}, {@code reason=penalty} when closed).
 * Admissions on probation are counted in {@code playline.connections.probation{transport, reason}},
 * closures in {@code playline.connections.refused}, logged in one line at most every {@value
 * #LOG_INTERVAL_SECONDS} s.
 *
 * <p>It also counts the gRPC resets of one address's streams not yet answered ({@link #earlyReset},
 * {@code grpc.max.early.resets.per.address}), so a rapid reset spread over many connections is cut
 * as one, and caps the connections of one address that have not yet proven themselves ({@link
 * #admitUnproven}, {@code connection.max.unproven.per.address}): a WebSocket before its upgrade, a gRPC
 * connection before its first stream. Each is cut at its deadline anyway; the cap bounds how many one
 * address holds at once (idle HTTP/2, slowloris): past it the address's oldest unproven connection
 * is closed to make room ({@code reason=unproven}), so strangers holding them cannot keep the
 * address's players from connecting.
 *
 * <p>Bounded: an address is remembered only while its bucket is not full again, its strikes' window
 * runs, or a penalty of it ended less than {@code connection.abuse.penalty.max} ago (the idle are
 * forgotten, least recently seen first, a few at each call), and at most {@code
 * connection.max.tracked.addresses} of them: past that the least recently seen is forgotten, so an
 * attacker with many addresses costs memory up to the cap, not more.
 *
 * <p>The unproven connections are kept by {@link UnprovenConnections}, the counters and log lines by
 * {@link AddressMeters}. Thread-safe: one lock for the addresses' budgets and one for the unproven
 * connections, each held for a map lookup and a little arithmetic per new connection.
 */
public final class AddressBudgets {
  static final long LOG_INTERVAL_SECONDS = 10;
  /** Idle addresses forgotten at most this many per call (each call adds at most one). */
  private static final int FORGET_PER_CALL = 4;

  /** Why a new connection was refused; its name is the metric's {@code reason}. */
  public enum Refusal { RATE, PENALTY, UNPROVEN }

  /**
   * How a new connection was admitted: freely, or on probation because it came over its address's
   * new-connection rate or while its address's penalty runs (the name is the metric's {@code reason}).
   */
  public enum Admission {
    FREE, OVER_RATE, PENALTY;

    /** Why a connection admitted so was closed when it did not authenticate in time. */
    public Refusal refusal() {
      return this == OVER_RATE ? Refusal.RATE : Refusal.PENALTY;
    }
  }

  /** The player ports; the name is the metric's {@code transport}. */
  public enum Transport { WS, GRPC }

  private final AddressLimitsConfig limits;
  private final long penaltyNanos;
  private final long penaltyMaxNanos;
  private final long resetWindowNanos;
  private final long strikeWindowNanos;
  private final AddressPrefixes prefixes;
  /** How long an empty bucket takes to fill: an address untouched this long (and not penalized) is idle. */
  private final long refillNanos;
  private final Time time;
  /** In access order: the least recently seen address first. */
  private final LinkedHashMap<InetAddress, Entry> entries = new LinkedHashMap<>(64, 0.75f, true);
  private final UnprovenConnections unproven;
  private final AddressMeters meters;

  public AddressBudgets(AddressLimitsConfig limits, MeterRegistry registry, Time time) {
    this.limits = limits;
    this.penaltyNanos = limits.abusePenalty().toNanos();
    this.penaltyMaxNanos = limits.abusePenaltyMax().toNanos();
    this.resetWindowNanos = limits.resetWindow().toNanos();
    this.strikeWindowNanos = limits.abuseWindow().toNanos();
    this.prefixes = limits.prefixes();
    this.refillNanos = Math.max(1, TimeUnit.SECONDS.toNanos(1) / limits.newPerSecond()) * limits.newBurst();
    this.time = time;
    this.meters = new AddressMeters(registry, time);
    this.unproven = new UnprovenConnections(limits.maxUnproven(), meters);
    registry.gauge("playline.connections.addresses", List.of(), this, AddressBudgets::addresses);
    registry.gauge("playline.connections.unproven", List.of(), this, AddressBudgets::unproven);
  }

  /**
   * Takes one new connection from {@code address}'s budget on {@code transport}. It is always
   * admitted; {@link Admission#FREE} when within the address's rate and the address is not on
   * probation, else on probation (counted): the caller must close it unless it authenticates as a
   * player within {@code connection.abuse.probation.timeout} ({@link Probation}).
   */
  public Admission admit(InetAddress address, Transport transport) {
    Admission admission;
    synchronized (this) {
      long now = time.nanoTime();
      Entry e = entry(address, now);
      boolean overRate = e.bucket.take(1, now) != 0;
      admission = e.penalizedAt(now) ? Admission.PENALTY : overRate ? Admission.OVER_RATE : Admission.FREE;
    }
    if (admission != Admission.FREE) {
      meters.onProbation(transport, admission);
    }
    return admission;
  }

  /** An unproven connection that can be closed to make room for a newer one of its address. */
  public interface Evictable {
    /** Closes the connection (any thread); its place is already given back. */
    void evict();
  }

  /**
   * Counts a new connection of {@code address} as unproven: null when admitted (then {@link #proven}
   * must follow exactly once, when it proves itself or closes), else {@link Refusal#UNPROVEN}
   * (counted; nothing held; the caller closes the connection).
   */
  public @Nullable Refusal admitUnproven(InetAddress address, Transport transport) {
    return admitUnproven(address, transport, null);
  }

  /**
   * As {@link #admitUnproven(InetAddress, Transport)}, but at the address's cap the oldest of its
   * unproven connections that gave a {@code hold} is evicted (closed, counted as {@code
   * reason=unproven}) to make room, so the newcomer is admitted: a slowloris or idle HTTP/2
   * connection is old, an honest player's handshake young, and strangers holding the address's
   * unproven places cannot keep its players out. {@link UnprovenHold} gives one.
   */
  public @Nullable Refusal admitUnproven(InetAddress address, Transport transport, @Nullable Evictable hold) {
    return unproven.admit(prefixes.key(address), transport, hold);
  }

  /** One of {@code address}'s unproven connections (admitted without a hold) proved itself or closed. */
  public void proven(InetAddress address) {
    proven(address, null);
  }

  /**
   * The unproven connection of {@code address} that gave {@code hold} (null: none) proved itself or
   * closed; nothing when it was evicted (its place was given back then).
   */
  public void proven(InetAddress address, @Nullable Evictable hold) {
    unproven.proven(prefixes.key(address), hold);
  }

  /** Unproven connections now, every address together. */
  public int unproven() {
    return unproven.total();
  }

  /** {@code connection.abuse.probation.timeout} */
  public java.time.Duration probationTimeout() {
    return limits.probationTimeout();
  }

  /** Whether a penalty of {@code address} runs now (its new connections are admitted on probation). */
  public boolean onProbation(InetAddress address) {
    synchronized (this) {
      long now = time.nanoTime();
      Entry e = entries.get(prefixes.key(address));
      return e != null && e.penalizedAt(now);
    }
  }

  /**
   * A connection of {@code address} admitted on probation did not authenticate in time and was
   * closed; {@code why} is how it was admitted ({@link Admission#OVER_RATE} or {@link Admission#PENALTY}).
   */
  public void probationFailed(InetAddress address, Transport transport, Admission why) {
    meters.logRefusal(prefixes.key(address), transport, why.refusal());
    meters.refused(transport, why.refusal());
  }

  /**
   * One of {@code address}'s connections on {@code transport} was cut for abuse (the caller closes
   * it, and only it). A {@code player}'s connection (authenticated) is counted and nothing more:
   * its address is shared with honest neighbours. A stranger's is a strike on the address: the
   * {@code connection.abuse.strikes}-th within {@code connection.abuse.window} puts it on probation
   * for the penalty — twice the last one when its last penalty ended less than the longest penalty
   * ago, up to that. Strikes while a penalty runs do not lengthen it.
   */
  public void abused(InetAddress address, Transport transport, boolean player) {
    meters.cut(transport, player);
    if (player || penaltyNanos == 0) {
      return;
    }
    long began = 0;
    synchronized (this) {
      long now = time.nanoTime();
      Entry e = entry(address, now);
      if (e.penalizedAt(now)) {
        return;
      }
      if (e.strikes == 0 || now - e.strikeWindowStart >= strikeWindowNanos) {
        e.strikeWindowStart = now;
        e.strikes = 0;
      }
      if (++e.strikes >= limits.abuseStrikes()) {
        e.strikes = 0;
        e.lastPenaltyNanos = e.penaltyRemembered(now)
            ? Math.min(penaltyMaxNanos, 2 * e.lastPenaltyNanos) : penaltyNanos;
        e.penaltyEnds = now + e.lastPenaltyNanos;
        began = e.lastPenaltyNanos;
      }
    }
    if (began > 0) {
      meters.penalized(prefixes.key(address), transport, began, limits.abuseStrikes(), limits.abuseWindow());
    }
  }

  /**
   * One of {@code address}'s gRPC connections was sent an {@code RST_STREAM} for a stream the server
   * had not yet answered (the HTTP/2 rapid reset: each such stream started a call for nothing): true
   * while the address's early resets in the current {@code grpc.rst.window} stay within {@code
   * grpc.max.early.resets.per.address}, all its connections together; false, so the caller cuts the
   * connection (a strike on the address), once over it — for every further early reset of the
   * address until the window ends — and while a penalty of the address runs. So K connections of
   * one address start at most the budget plus K such calls before each is cut, not K budgets.
   */
  public boolean earlyReset(InetAddress address) {
    synchronized (this) {
      long now = time.nanoTime();
      Entry e = entry(address, now);
      if (e.penalizedAt(now)) {
        return false;
      }
      if (e.earlyResets == 0 || now - e.resetWindowStart >= resetWindowNanos) {
        e.resetWindowStart = now;
        e.earlyResets = 0;
      }
      return ++e.earlyResets <= limits.earlyResets();
    }
  }

  /** Addresses remembered now. */
  public synchronized int addresses() {
    return entries.size();
  }

  /** {@code address}'s entry, made (forgetting the least recently seen past the cap) when there is none. */
  private Entry entry(InetAddress address, long now) {
    address = prefixes.key(address);
    forgetIdle(now);
    Entry e = entries.get(address);
    if (e == null) {
      if (entries.size() >= limits.maxTracked()) {
        Iterator<Entry> eldest = entries.values().iterator();
        eldest.next();
        eldest.remove();
      }
      e = new Entry(now);
      entries.put(address, e);
    }
    e.seen = now;
    return e;
  }

  /**
   * Forgets up to a few of the least recently seen addresses whose bucket is full, whose strikes'
   * window ended and whose last penalty ended at least the longest penalty ago (until then a repeat offence doubles it). One
   * kept only for its penalty goes to the back of the line, so it does not hold the idle ones behind
   * it in memory (nor become the first the cap forgets).
   */
  private void forgetIdle(long now) {
    Iterator<Map.Entry<InetAddress, Entry>> oldest = entries.entrySet().iterator();
    List<Map.Entry<InetAddress, Entry>> kept = null;
    for (int i = 0; i < FORGET_PER_CALL && oldest.hasNext(); i++) {
      Map.Entry<InetAddress, Entry> next = oldest.next();
      Entry e = next.getValue();
      if (now - e.seen < refillNanos) {
        break; // seen since: so is everyone after it
      }
      if (e.penaltyRemembered(now) || e.strikes > 0 && now - e.strikeWindowStart < strikeWindowNanos) {
        if (kept == null) {
          kept = new ArrayList<>(FORGET_PER_CALL);
        }
        kept.add(Map.entry(next.getKey(), e));
      }
      oldest.remove();
    }
    if (kept != null) {
      for (Map.Entry<InetAddress, Entry> k : kept) {
        entries.put(k.getKey(), k.getValue());
      }
    }
  }

  /** One address's budget (guarded by the enclosing instance). */
  private final class Entry {
    final TokenBucket bucket;
    long seen;
    long penaltyEnds;
    /** The length of its latest penalty; 0 = none yet. */
    long lastPenaltyNanos;
    /** Its early resets since {@link #resetWindowStart} (see {@link #earlyReset}). */
    int earlyResets;
    long resetWindowStart;
    /** Its strangers' connections cut for abuse since {@link #strikeWindowStart} (see {@link #abused}). */
    int strikes;
    long strikeWindowStart;

    Entry(long now) {
      bucket = new TokenBucket(limits.newBurst(), limits.newPerSecond(), TimeUnit.SECONDS.toNanos(1), now);
    }

    /** Whether a penalty of it runs at {@code now}. */
    boolean penalizedAt(long now) {
      return lastPenaltyNanos > 0 && now - penaltyEnds < 0;
    }

    /** Whether its last penalty ended less than the longest penalty before {@code now}: the next one doubles. */
    boolean penaltyRemembered(long now) {
      return lastPenaltyNanos > 0 && now - penaltyEnds < penaltyMaxNanos;
    }
  }
}
