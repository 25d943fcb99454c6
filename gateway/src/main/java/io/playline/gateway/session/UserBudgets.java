package io.playline.gateway.session;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.playline.node.edge.TokenBucket;
import io.playline.proto.v1.Error.Code;
import io.playline.proto.v1.Error;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * What one user may make this node spend across all of its connections: heartbeat events per
 * second ({@code user.max.events.per.second}), deleted items per minute over the player stream
 * ({@code user.max.deletes.per.minute}, a clear counts one) and authentications per minute ({@code
 * user.max.auths.per.minute}: each writes a session to Redis). Each is a token bucket per uid: the
 * events bucket holds {@value #EVENTS_BURST_SECONDS} seconds' worth (an honest client that
 * reconnects resends up to its whole unacked buffer at once: the SDKs keep 1 000 events), the
 * deletes and auths buckets one minute's; a steady flood gets the budget, no matter how many
 * connections carry it. Refusals are {@code RATE_LIMITED} with {@code retry_after_ms}, counted in {@code
 * playline.user.budget.refusals}. A connection that keeps sending events while told to wait is
 * refused without touching the bucket ({@link #refuseWaiting}) and, past {@code
 * user.max.refusals.before.close}, closed ({@link #closedForNotWaiting}, counted in {@code
 * playline.user.budget.closes}).
 *
 * <p>Bounded: a user has buckets while connected to this node ({@link #join} on auth, {@link #leave}
 * when each connection closes) and for {@link #IDLE_RETENTION_NANOS} after its last connection
 * closed or its last authentication while it had none — by then every bucket is full again, so
 * closing and reconnecting buys no fresh budget. Users who left are forgotten in the order they
 * left, a few at each join, leave or authentication. Enforced per node: a user connected to k nodes
 * gets up to k budgets (see docs/security.md).
 *
 * <p>Thread-safe: a user's connections may sit on different event loops; each bucket is a short
 * synchronized section, uncontended unless one user floods from several loops.
 */
public final class UserBudgets {
  /** The events bucket holds this many seconds of the per-second budget. */
  static final int EVENTS_BURST_SECONDS = 10;
  /** How long a user's buckets outlive its last connection: the longest refill (the deletes and auths buckets' minute). */
  static final long IDLE_RETENTION_NANOS = TimeUnit.MINUTES.toNanos(1);
  /**
   * Users who left, forgotten at most this many per join, leave or authentication (an entry is added
   * per leave and per authentication without a connection, so forgetting keeps pace).
   */
  private static final int FORGET_PER_CALL = 4;

  private final int eventsPerSecond;
  private final int deletesPerMinute;
  private final int authsPerMinute;
  private final LongSupplier nanoClock;
  private final ConcurrentHashMap<Long, User> users = new ConcurrentHashMap<>();
  /** Users whose last connection closed, oldest first, with when. */
  private final ConcurrentLinkedQueue<Left> left = new ConcurrentLinkedQueue<>();
  private final Counter eventsRefused;
  private final Counter deletesRefused;
  private final Counter authsRefused;
  private final Counter eventsCloses;

  public UserBudgets(int eventsPerSecond, int deletesPerMinute, int authsPerMinute, MeterRegistry registry,
      LongSupplier nanoClock) {
    if (eventsPerSecond <= 0 || deletesPerMinute <= 0 || authsPerMinute <= 0) {
      throw new IllegalArgumentException("user budgets: " + eventsPerSecond + " events/s, " + deletesPerMinute
          + " deletes/min, " + authsPerMinute + " auths/min (expected: each > 0)");
    }
    this.eventsPerSecond = eventsPerSecond;
    this.deletesPerMinute = deletesPerMinute;
    this.authsPerMinute = authsPerMinute;
    this.nanoClock = nanoClock;
    String description = "Frames refused RATE_LIMITED because the user spent its budget across its connections";
    eventsRefused = Counter.builder("playline.user.budget.refusals").tag("budget", "events")
        .description(description).register(registry);
    deletesRefused = Counter.builder("playline.user.budget.refusals").tag("budget", "deletes")
        .description(description).register(registry);
    authsRefused = Counter.builder("playline.user.budget.refusals").tag("budget", "auths")
        .description(description).register(registry);
    eventsCloses = Counter.builder("playline.user.budget.closes").tag("budget", "events")
        .description("Connections closed RATE_LIMITED for sending events while told to wait (retry_after_ms)")
        .register(registry);
    registry.gaugeMapSize("playline.user.budget.users", List.of(), users);
  }

  /** A connection of {@code uid} authenticated; pair with one {@link #leave}. */
  public void join(long uid) {
    long now = nanoClock.getAsLong();
    forgetIdle(now);
    users.compute(uid, (u, user) -> {
      User v = user == null ? new User(now) : user;
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

  /** Forgets up to a few users whose last connection closed over a minute ago and who did not come back since. */
  private void forgetIdle(long now) {
    for (int i = 0; i < FORGET_PER_CALL; i++) {
      Left head = left.peek();
      if (head == null || now - head.at() < IDLE_RETENTION_NANOS || !left.remove(head)) {
        return;
      }
      users.computeIfPresent(head.uid(), (u, user) -> user.connections == 0 && user.leftAt == head.at() ? null : user);
    }
  }

  /** Takes {@code events} from the user's events budget: null when granted, else the refusal to send. */
  public @Nullable Error takeEvents(long uid, int events) {
    User user = users.get(uid);
    long wait = take(user == null ? null : user.events, events);
    return wait == 0 ? null : refusal(wait, eventsRefused, "more than " + eventsPerSecond + " events per second");
  }

  /** Takes {@code deletes} from the user's deletes budget: null when granted, else the refusal to send. */
  public @Nullable Error takeDeletes(long uid, int deletes) {
    User user = users.get(uid);
    long wait = take(user == null ? null : user.deletes, deletes);
    return wait == 0 ? null : refusal(wait, deletesRefused, "more than " + deletesPerMinute + " deleted items per minute");
  }

  /**
   * Takes one authentication from the user's budget, once its credential is verified and before its
   * session is written: null when granted, else the refusal to send. A user without a connection
   * here gets buckets that are kept a minute after this authentication, refused or not.
   */
  public @Nullable Error takeAuth(long uid) {
    long now = nanoClock.getAsLong();
    forgetIdle(now);
    User user = users.compute(uid, (u, known) -> {
      User v = known == null ? new User(now) : known;
      if (v.connections == 0) {
        v.leftAt = now;
        left.add(new Left(uid, now));
      }
      return v;
    });
    long wait = user.auths.take(1, now);
    return wait == 0 ? null : refusal(wait, authsRefused, "more than " + authsPerMinute + " authentications per minute");
  }

  /**
   * The refusal of events sent {@code waitNanos} before the connection's last refusal said to send
   * them again: counted as a refusal of the events budget, the bucket untouched.
   */
  public Error refuseWaiting(long waitNanos) {
    return refusal(waitNanos, eventsRefused, "events sent again before retry_after_ms");
  }

  /** A connection was closed for sending events while told to wait. */
  public void closedForNotWaiting() {
    eventsCloses.increment();
  }

  /** A user not joined (its last connection just closed) is not charged: it has nothing left to flood with. */
  private long take(@Nullable TokenBucket bucket, int n) {
    return bucket == null ? 0 : bucket.take(n, nanoClock.getAsLong());
  }

  private static Error refusal(long waitNanos, Counter refused, String what) {
    refused.increment();
    long ms = Math.max(1, TimeUnit.NANOSECONDS.toMillis(waitNanos + 999_999));
    return Error.newBuilder().setCode(Code.RATE_LIMITED)
        .setMessage(what + " from this user; retry after " + ms + " ms")
        .setRetryAfterMs((int) Math.min(Integer.MAX_VALUE, ms)).build();
  }

  /** Users holding buckets now (connected, or gone for less than a minute). */
  public int users() {
    return users.size();
  }

  /** One user's buckets and how many of its connections are open here (guarded by the map's compute). */
  private final class User {
    final TokenBucket events;
    final TokenBucket deletes;
    final TokenBucket auths;
    int connections;
    long leftAt;

    User(long now) {
      events = new TokenBucket((long) eventsPerSecond * EVENTS_BURST_SECONDS, eventsPerSecond,
          TimeUnit.SECONDS.toNanos(1), now);
      deletes = new TokenBucket(deletesPerMinute, deletesPerMinute, TimeUnit.MINUTES.toNanos(1), now);
      auths = new TokenBucket(authsPerMinute, authsPerMinute, TimeUnit.MINUTES.toNanos(1), now);
    }
  }

  private record Left(long uid, long at) {}
}
