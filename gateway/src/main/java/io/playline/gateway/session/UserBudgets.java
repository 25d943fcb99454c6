package io.playline.gateway.session;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.playline.proto.v1.Error;
import io.playline.proto.v1.Error.Code;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * What one user may make this node spend across all of its connections: heartbeat events per
 * second ({@code user.max.events.per.second}) and deleted items per minute over the player stream
 * ({@code user.max.deletes.per.minute}, a clear counts one). Each is a token bucket per uid holding
 * one period's worth, so a burst up to the budget passes and a steady flood gets the budget, no
 * matter how many connections carry it. Refusals are {@code RATE_LIMITED} with {@code
 * retry_after_ms}, counted in {@code playline.user.budget.refusals}.
 *
 * <p>Bounded: a user has buckets only while connected to this node ({@link #join} on auth, {@link
 * #leave} when each connection closes, the buckets dropped with the last). Enforced per node: a
 * user connected to k nodes gets up to k budgets (see docs/security.md).
 *
 * <p>Thread-safe: a user's connections may sit on different event loops; each bucket is a short
 * synchronized section, uncontended unless one user floods from several loops.
 */
public final class UserBudgets {
  private final int eventsPerSecond;
  private final int deletesPerMinute;
  private final LongSupplier nanoClock;
  private final ConcurrentHashMap<Long, User> users = new ConcurrentHashMap<>();
  private final Counter eventsRefused;
  private final Counter deletesRefused;

  public UserBudgets(int eventsPerSecond, int deletesPerMinute, MeterRegistry registry, LongSupplier nanoClock) {
    if (eventsPerSecond <= 0 || deletesPerMinute <= 0) {
      throw new IllegalArgumentException("user budgets: " + eventsPerSecond + " events/s, " + deletesPerMinute
          + " deletes/min (expected: each > 0)");
    }
    this.eventsPerSecond = eventsPerSecond;
    this.deletesPerMinute = deletesPerMinute;
    this.nanoClock = nanoClock;
    String description = "Frames refused RATE_LIMITED because the user spent its budget across its connections";
    eventsRefused = Counter.builder("playline.user.budget.refusals").tag("budget", "events")
        .description(description).register(registry);
    deletesRefused = Counter.builder("playline.user.budget.refusals").tag("budget", "deletes")
        .description(description).register(registry);
    registry.gaugeMapSize("playline.user.budget.users", List.of(), users);
  }

  /** A connection of {@code uid} authenticated; pair with one {@link #leave}. */
  public void join(long uid) {
    users.compute(uid, (u, user) -> {
      User v = user == null ? new User() : user;
      v.connections++;
      return v;
    });
  }

  /** A connection {@link #join} counted closed; the user's buckets go with its last connection. */
  public void leave(long uid) {
    users.computeIfPresent(uid, (u, user) -> --user.connections <= 0 ? null : user);
  }

  /** Takes {@code events} from the user's events budget: null when granted, else the refusal to send. */
  public @Nullable Error takeEvents(long uid, int events) {
    User user = users.get(uid);
    return take(user == null ? null : user.events, events, eventsRefused,
        "more than " + eventsPerSecond + " events per second from this user");
  }

  /** Takes {@code deletes} from the user's deletes budget: null when granted, else the refusal to send. */
  public @Nullable Error takeDeletes(long uid, int deletes) {
    User user = users.get(uid);
    return take(user == null ? null : user.deletes, deletes, deletesRefused,
        "more than " + deletesPerMinute + " deleted items per minute from this user");
  }

  /** A user not joined (its last connection just closed) is not charged: it has nothing left to flood with. */
  private @Nullable Error take(@Nullable TokenBucket bucket, int n, Counter refused, String message) {
    long waitNanos = bucket == null ? 0 : bucket.take(n, nanoClock.getAsLong());
    if (waitNanos == 0) {
      return null;
    }
    refused.increment();
    long ms = Math.max(1, TimeUnit.NANOSECONDS.toMillis(waitNanos + 999_999));
    return Error.newBuilder().setCode(Code.RATE_LIMITED).setMessage(message + "; retry after " + ms + " ms")
        .setRetryAfterMs((int) Math.min(Integer.MAX_VALUE, ms)).build();
  }

  /** Users holding buckets now. */
  public int users() {
    return users.size();
  }

  /** One user's buckets and how many of its connections are open here (guarded by the map's compute). */
  private final class User {
    final TokenBucket events = new TokenBucket(eventsPerSecond, TimeUnit.SECONDS.toNanos(1), nanoClock.getAsLong());
    final TokenBucket deletes = new TokenBucket(deletesPerMinute, TimeUnit.MINUTES.toNanos(1), nanoClock.getAsLong());
    int connections;
  }
}
