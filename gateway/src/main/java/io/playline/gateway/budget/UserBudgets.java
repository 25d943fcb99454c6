package io.playline.gateway.budget;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.playline.node.edge.TokenBucket;
import io.playline.node.push.RegistryListener;
import io.playline.proto.v1.Error.Code;
import io.playline.proto.v1.Error;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * What one user may make the gateway nodes spend across all of its connections: heartbeat events per
 * second ({@code user.max.events.per.second}), deleted items per minute over the player stream
 * ({@code user.max.deletes.per.minute}, a clear counts one) and authentications per minute ({@code
 * user.max.auths.per.minute}: each writes a session to Redis). Each is a token bucket per uid: the
 * events bucket holds {@value #EVENTS_BURST_SECONDS} seconds' worth (an honest client that
 * reconnects resends up to its whole unacked buffer at once: the SDKs keep 1 000 events), the
 * deletes bucket one minute's, the auths bucket {@code user.max.auths.burst} (a few devices
 * reconnecting together pass; an account that authenticates over and over is refused within about a
 * second instead of after a minute's worth); a steady flood gets the budget, no matter how many
 * connections carry it. Refusals are {@code RATE_LIMITED} with {@code retry_after_ms}, counted in {@code
 * playline.user.budget.refusals}. A connection that keeps sending events while told to wait is
 * refused without touching the bucket ({@link #refuseWaiting}) and, past {@code
 * user.max.refusals.before.close}, closed ({@link #closedForNotWaiting}, counted in {@code
 * playline.user.budget.closes}).
 *
 * <p>Shared across nodes without a Redis command of its own on an honest user's path: each node
 * keeps its own buckets but charges every event, delete and authentication {@code 1 + k} tokens,
 * where k is the number of other live nodes it knows to hold a connection of the user, so the k + 1
 * nodes together grant about one budget (one burst, one refill rate). k comes from the push session
 * registry ({@link RegistryListener}): what it read when this node joined the user's registry (or
 * later, for a push), plus one for each node that announced joining since. A user spending fast
 * (a bucket below half, or a refusal) has k looked up again ({@link OtherNodes}) at most once per
 * {@link #LOOKUP_INTERVAL_NANOS}, so an answer that missed a join is corrected within about a second;
 * honest users never get there. Only the user's own nodes are counted, so nobody can shrink another
 * user's budget; a node that left is counted until the next read (the user's own budget, smaller
 * for a while). Takes charged for more than one node are counted in {@code
 * playline.user.budget.shared.takes}.
 *
 * <p>Bounded: a user has buckets while connected to this node ({@link #join} on auth, {@link #leave}
 * when each connection closes) and for {@link #IDLE_RETENTION_NANOS} after its last connection
 * closed or its last authentication while it had none — by then every bucket is full again (one
 * still paying off a take larger than a bucket is kept until it is), so closing and reconnecting
 * buys no fresh budget. Users who left are forgotten in the order they left, a few at each join,
 * leave or authentication.
 *
 * <p>Thread-safe: a user's connections may sit on different event loops, and k is updated from
 * Redis client threads; each bucket is a short synchronized section, uncontended unless one user
 * floods from several loops.
 */
public final class UserBudgets implements RegistryListener {
  /** The events bucket holds this many seconds of the per-second budget. */
  static final int EVENTS_BURST_SECONDS = 10;
  /** How long a user's buckets outlive its last connection: the longest refill (the deletes and auths buckets' minute). */
  static final long IDLE_RETENTION_NANOS = TimeUnit.MINUTES.toNanos(1);
  /** How often a user spending fast has the nodes holding it looked up again, at most. */
  static final long LOOKUP_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);
  /**
   * Users who left, forgotten at most this many per join, leave or authentication (an entry is added
   * per leave and per authentication without a connection, so forgetting keeps pace).
   */
  private static final int FORGET_PER_CALL = 4;

  private final int eventsPerSecond;
  private final int deletesPerMinute;
  private final int authsPerMinute;
  private final int authsBurst;
  private final LongSupplier nanoClock;
  /** Looks up the other nodes of a user spending fast. */
  private final OtherNodes lookup;
  /** What a refusal of each budget says the user sent too much of. */
  private final String eventsTooMany;
  private final String deletesTooMany;
  private final String authsTooMany;
  private final ConcurrentHashMap<Long, Account> users = new ConcurrentHashMap<>();
  /** Users whose last connection closed, oldest first, with when. */
  private final ConcurrentLinkedQueue<Left> left = new ConcurrentLinkedQueue<>();
  private final Counter eventsRefused;
  private final Counter deletesRefused;
  private final Counter authsRefused;
  private final Counter eventsCloses;
  private final Counter eventsShared;
  private final Counter deletesShared;
  private final Counter authsShared;
  private final AuthRefusalHold authRefusalHold;

  /** Looks up how many live nodes other than this one hold a connection of a user. */
  @FunctionalInterface
  public interface OtherNodes {
    /** The number of other nodes holding {@code uid}: a cached answer or a read; never blocks. */
    CompletionStage<Integer> of(long uid);
  }

  /**
   * Budgets of the given sizes, on {@code nanoClock}, learning the nodes a user spends from through
   * {@link RegistryListener} calls and, for a user spending fast, {@code otherNodes}.
   */
  public UserBudgets(int eventsPerSecond, int deletesPerMinute, int authsPerMinute, int authsBurst,
      MeterRegistry registry, LongSupplier nanoClock, OtherNodes otherNodes) {
    this(eventsPerSecond, deletesPerMinute, authsPerMinute, authsBurst, registry, nanoClock, otherNodes,
        new AuthRefusalHold(java.time.Duration.ZERO, 0, registry));
  }

  /** As above, holding back the answers to authentications over budget as {@code authRefusalHold} says. */
  public UserBudgets(int eventsPerSecond, int deletesPerMinute, int authsPerMinute, int authsBurst,
      MeterRegistry registry, LongSupplier nanoClock, OtherNodes otherNodes, AuthRefusalHold authRefusalHold) {
    if (eventsPerSecond <= 0 || deletesPerMinute <= 0 || authsPerMinute <= 0 || authsBurst <= 0) {
      throw new IllegalArgumentException("user budgets: " + eventsPerSecond + " events/s, " + deletesPerMinute
          + " deletes/min, " + authsPerMinute + " auths/min in bursts of " + authsBurst + " (expected: each > 0)");
    }
    this.eventsPerSecond = eventsPerSecond;
    this.deletesPerMinute = deletesPerMinute;
    this.authsPerMinute = authsPerMinute;
    // A burst above the per-minute budget would grant more in its first minute than the budget says.
    this.authsBurst = Math.min(authsBurst, authsPerMinute);
    this.nanoClock = nanoClock;
    this.lookup = otherNodes;
    this.eventsTooMany = "more than " + eventsPerSecond + " events per second";
    this.deletesTooMany = "more than " + deletesPerMinute + " deleted items per minute";
    this.authsTooMany = "more than " + this.authsBurst + " authentications at once or " + authsPerMinute
        + " per minute";
    this.authRefusalHold = authRefusalHold;
    String refusals = "Frames refused RATE_LIMITED because the user spent its budget across its connections";
    eventsRefused = counter(registry, "playline.user.budget.refusals", "events", refusals);
    deletesRefused = counter(registry, "playline.user.budget.refusals", "deletes", refusals);
    authsRefused = counter(registry, "playline.user.budget.refusals", "auths", refusals);
    eventsCloses = counter(registry, "playline.user.budget.closes", "events",
        "Connections closed RATE_LIMITED for sending events while told to wait (retry_after_ms)");
    String shared = "Budget takes of a user that other nodes hold too, charged 1 + those nodes per item";
    eventsShared = counter(registry, "playline.user.budget.shared.takes", "events", shared);
    deletesShared = counter(registry, "playline.user.budget.shared.takes", "deletes", shared);
    authsShared = counter(registry, "playline.user.budget.shared.takes", "auths", shared);
    registry.gaugeMapSize("playline.user.budget.users", List.of(), users);
  }

  private static Counter counter(MeterRegistry registry, String name, String budget, String description) {
    return Counter.builder(name).tag("budget", budget).description(description).register(registry);
  }

  /** Now on the budgets' clock, which a refusal's {@code retry_after_ms} is measured on. */
  public long nanoTime() {
    return nanoClock.getAsLong();
  }

  /**
   * A connection of {@code uid} authenticated; pair with one {@link #leave}. Returns the user's
   * account, which every connection of the user on this node shares: the connection charges its
   * heartbeats to it without looking the user up, and it stays the user's account until its last
   * connection has left (a user is forgotten only then).
   */
  public Account join(long uid) {
    long now = nanoClock.getAsLong();
    forgetIdle(now);
    return users.compute(uid, (u, user) -> {
      Account v = user == null ? new Account(uid, now) : user;
      v.connections++;
      return v;
    });
  }

  /** A connection {@link #join} counted closed; the user's buckets outlive its last connection by a minute. */
  public void leave(long uid) {
    long now = nanoClock.getAsLong();
    forgetIdle(now);
    users.computeIfPresent(uid, (u, user) -> {
      if (--user.connections <= 0) {
        user.connections = 0;
        user.leftAt = now;
        left.add(new Left(uid, now));
      }
      return user;
    });
  }

  /**
   * Forgets up to a few users whose last connection closed over a minute ago and who did not come
   * back since, once their buckets are full again.
   */
  private void forgetIdle(long now) {
    for (int i = 0; i < FORGET_PER_CALL; i++) {
      Left head = left.peek();
      if (head == null || now - head.at() < IDLE_RETENTION_NANOS || !left.remove(head)) {
        return;
      }
      users.computeIfPresent(head.uid(), (u, user) -> {
        if (user.connections != 0 || user.leftAt != head.at()) {
          return user;
        }
        if (user.isFull(now)) {
          return null;
        }
        // Still paying off a take larger than a bucket: kept until it is.
        user.leftAt = now;
        left.add(new Left(u, now));
        return user;
      });
    }
  }

  /**
   * Takes {@code events} from {@code uid}'s events budget, looked up by uid: null when granted, else
   * the refusal to send. A user without buckets here (its last connection just closed) is not
   * charged: it has nothing left to flood with. A connection takes from the {@link Account} its
   * {@link #join} returned instead, without the lookup.
   */
  public @Nullable Error takeEvents(long uid, int events) {
    Account account = users.get(uid);
    return account == null ? null : account.takeEvents(events);
  }

  /** Takes {@code deletes} from {@code uid}'s deletes budget, as {@link #takeEvents(long, int)} takes events. */
  public @Nullable Error takeDeletes(long uid, int deletes) {
    Account account = users.get(uid);
    return account == null ? null : account.takeDeletes(deletes);
  }

  /**
   * Takes one authentication from the user's budget, once its credential is verified and before its
   * session is written: null when granted, else the refusal to send. A user without a connection
   * here gets buckets that are kept a minute after this authentication, refused or not.
   */
  public @Nullable Error takeAuth(long uid) {
    long now = nanoClock.getAsLong();
    forgetIdle(now);
    Account user = users.compute(uid, (u, known) -> {
      Account v = known == null ? new Account(uid, now) : known;
      if (v.connections == 0) {
        v.leftAt = now;
        left.add(new Left(uid, now));
      }
      return v;
    });
    int others = user.otherNodes;
    if (others > 0) {
      authsShared.increment();
    }
    long wait = user.auths.take(1 + others, now);
    return wait == 0 ? null : refusal(wait, authsRefused, authsTooMany, others);
  }

  /** How long a refusal of {@link #takeAuth} is held back before it is answered. */
  public AuthRefusalHold authRefusalHold() {
    return authRefusalHold;
  }

  /** The registry read {@code uid}'s other nodes: charges follow the answer from now on. */
  @Override
  public void otherNodesRead(long uid, int others) {
    Account user = users.get(uid);
    if (user != null) {
      user.otherNodes = others;
    }
  }

  /** Another node joined {@code uid}'s registry: one more node shares its budgets. */
  @Override
  public void otherNodeJoined(long uid) {
    users.computeIfPresent(uid, (u, user) -> {
      user.otherNodes++;
      return user;
    });
  }

  /**
   * The refusal of events sent {@code waitNanos} before the connection's last refusal said to send
   * them again: counted as a refusal of the events budget, the bucket untouched.
   */
  public Error refuseWaiting(long waitNanos) {
    return refusal(waitNanos, eventsRefused, "events sent again before retry_after_ms", 0);
  }

  /** A connection was closed for sending events while told to wait. */
  public void closedForNotWaiting() {
    eventsCloses.increment();
  }

  private static Error refusal(long waitNanos, Counter refused, String what, int otherNodes) {
    refused.increment();
    long ms = Math.max(1, TimeUnit.NANOSECONDS.toMillis(waitNanos + 999_999));
    String where = otherNodes == 0 ? "" : " across the " + (otherNodes + 1) + " nodes it is connected to";
    return Error.newBuilder().setCode(Code.RATE_LIMITED)
        .setMessage(what + " from this user" + where + "; retry after " + ms + " ms")
        .setRetryAfterMs((int) Math.min(Integer.MAX_VALUE, ms)).build();
  }

  /** Users holding buckets now (connected, or gone for less than a minute). */
  public int users() {
    return users.size();
  }

  /**
   * One user's buckets on this node, shared by its connections: how many of them are open here and
   * when it left (guarded by the map's compute), and how many other nodes hold it (last writer wins:
   * an estimate, corrected by the next read). A connection holds its user's account from {@link
   * #join} to {@link #leave} and takes from it directly.
   */
  public final class Account {
    private final long uid;
    private final TokenBucket events;
    private final TokenBucket deletes;
    private final TokenBucket auths;
    private int connections;
    private long leftAt;
    private volatile int otherNodes;
    private volatile long lookedUpAt;

    private Account(long uid, long now) {
      this.uid = uid;
      lookedUpAt = now - LOOKUP_INTERVAL_NANOS;
      events = new TokenBucket((long) eventsPerSecond * EVENTS_BURST_SECONDS, eventsPerSecond,
          TimeUnit.SECONDS.toNanos(1), now);
      deletes = new TokenBucket(deletesPerMinute, deletesPerMinute, TimeUnit.MINUTES.toNanos(1), now);
      auths = new TokenBucket(authsBurst, authsPerMinute, TimeUnit.MINUTES.toNanos(1), now);
    }

    /** The user this account is. */
    public long uid() {
      return uid;
    }

    /** Takes {@code n} events from the user's events budget: null when granted, else the refusal to send. */
    public @Nullable Error takeEvents(int n) {
      return take(events, n, eventsShared, eventsRefused, eventsTooMany);
    }

    /** Takes {@code n} deleted items from the user's deletes budget, as {@link #takeEvents} takes events. */
    public @Nullable Error takeDeletes(int n) {
      return take(deletes, n, deletesShared, deletesRefused, deletesTooMany);
    }

    /**
     * Takes {@code n} items from {@code bucket} at {@code 1 + k} tokens each. A user spending fast
     * (refused, or under half a bucket) has its other nodes looked up again.
     */
    private @Nullable Error take(TokenBucket bucket, int n, Counter shared, Counter refused, String what) {
      long now = nanoClock.getAsLong();
      int others = otherNodes;
      if (others > 0) {
        shared.increment();
      }
      long wait = bucket.take((long) n * (1 + others), now);
      if ((wait > 0 || bucket.isBelowHalf()) && now - lookedUpAt >= LOOKUP_INTERVAL_NANOS) {
        lookedUpAt = now;
        lookup.of(uid).whenComplete((count, error) -> {
          if (count != null) {
            otherNodes = count;
          }
        });
      }
      return wait == 0 ? null : refusal(wait, refused, what, others);
    }

    private boolean isFull(long now) {
      return events.isFull(now) && deletes.isFull(now) && auths.isFull(now);
    }
  }

  private record Left(long uid, long at) {}
}
