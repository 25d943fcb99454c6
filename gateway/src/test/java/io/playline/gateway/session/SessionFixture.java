package io.playline.gateway.session;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.playline.core.config.ConfigSource;
import io.playline.core.write.EventRules;
import io.playline.gateway.TestGateway;
import io.playline.gateway.budget.UserBudgets;
import io.playline.gateway.config.GatewayConfig;
import io.playline.gateway.heartbeat.HeartbeatPath;
import io.playline.gateway.heartbeat.WritePath;
import io.playline.gateway.push.PushRegistrar;
import io.playline.gateway.stream.ConnectionIdentity;
import io.playline.gateway.stream.StreamTransport;
import io.playline.node.WriteLimitsConfig;
import io.playline.node.auth.AuthenticationException;
import io.playline.node.edge.ConnectionLimiter;
import io.playline.node.write.FlagCalendar;
import io.playline.node.write.PendingWrite;
import io.playline.testing.ManualTime;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What a {@link StreamSession} stands on ({@link SessionParts}), in memory: a {@link ManualTime},
 * meters on a {@link SimpleMeterRegistry}, and fakes of the session's narrow parts that record what
 * they are asked: tokens ({@link Tokens}), sessions kept in a map ({@link #stored}), push
 * registrations ({@link Registrations}) and the heartbeat write path ({@link Writes}); the user
 * limits are the node's ({@link UserLimits#of}) on in-memory budgets and caps ({@code
 * connection.max.per.user} as configured). No history queries: a node without them.
 */
public final class SessionFixture {
  public final ManualTime time = new ManualTime();
  public final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  public final GatewayMetrics metrics = new GatewayMetrics(registry);
  public final Map<String, StoredSession> stored = new ConcurrentHashMap<>();
  public final GatewayConfig config;
  public final UserBudgets budgets;
  public final FlagCalendar calendar = new FlagCalendar(ZoneOffset.UTC, time);
  public final Tokens tokens = new Tokens();
  public final ConnectionLimiter limiter;
  public final Registrations push = new Registrations();
  public final Writes writes = new Writes();
  public final SessionParts parts;

  public SessionFixture() {
    this(Map.of());
  }

  /** With the gateway's defaults overridden by {@code settings}. */
  public SessionFixture(Map<String, String> settings) {
    config = GatewayConfig.from(ConfigSource.load(null, Map.of(), new Properties(), settings), TestGateway.SECRET);
    budgets = new UserBudgets(config.maxUserEventsPerSecond(), config.maxUserDeletesPerMinute(),
        config.maxUserAuthsPerMinute(), config.maxUserAuthsBurst(), registry, time::nanoTime, uid -> CompletableFuture.completedFuture(0));
    limiter = new ConnectionLimiter(100, 100, config.maxConnectionsPerUser());
    HeartbeatPath heartbeats = new HeartbeatPath(writes, budgets, WriteLimitsConfig.from(ConfigSource.empty()),
        new EventRules(Duration.ofDays(1), Duration.ofMinutes(5)), calendar, time,
        config.maxUserRefusalsBeforeClose());
    parts = new SessionParts(config, time, metrics, tokens, new MapResumeStore(), UserLimits.of(budgets, limiter), push,
        heartbeats, null);
  }

  /** A player token for {@code uid}, valid for an hour from the fixture's now. */
  public String token(long uid) {
    return tokens.issue(uid, time.millis() + Duration.ofHours(1).toMillis());
  }

  /** The count of {@code playline.errors{code}}: error frames sent with {@code code}. */
  public double errors(String code) {
    return registry.get("playline.errors").tag("code", code).counter().count();
  }

  /**
   * A token verifier that knows the tokens it {@linkplain #issue issued} and answers at once: any other
   * token is rejected ({@link AuthenticationException}), and while {@link #down} every check fails as an
   * unreachable identity service would.
   */
  public static final class Tokens implements Authenticator {
    private final Map<String, Principal> issued = new ConcurrentHashMap<>();
    /** The tokens checked, in order. */
    public final List<String> checked = new ArrayList<>();
    public boolean down;

    /** A new token of {@code uid} that expires at {@code expiresAtMs}. */
    public String issue(long uid, long expiresAtMs) {
      String token = "token-" + uid + "-" + issued.size();
      issued.put(token, new Principal(uid, expiresAtMs));
      return token;
    }

    @Override
    public CompletionStage<Principal> authenticate(String token) {
      checked.add(token);
      if (down) {
        return CompletableFuture.failedFuture(new IllegalStateException("identity service unreachable"));
      }
      Principal principal = issued.get(token);
      return principal == null ? CompletableFuture.failedFuture(new AuthenticationException("unknown token"))
          : CompletableFuture.completedFuture(principal);
    }
  }

  /** Push registrations kept in a list; the users whose activity was reported. */
  public static final class Registrations implements PushRegistrar {
    public final List<Registered> registered = new ArrayList<>();
    public final List<Long> touched = new ArrayList<>();

    /** One connection registered for push. */
    public final class Registered implements Handle {
      public final ConnectionIdentity identity;
      public boolean closed;

      Registered(ConnectionIdentity identity) {
        this.identity = identity;
      }

      @Override
      public void touch() {
        touched.add(identity.uid());
      }

      @Override
      public void close() {
        closed = true;
      }
    }

    @Override
    public Handle register(ConnectionIdentity identity, StreamTransport transport) {
      Registered r = new Registered(identity);
      registered.add(r);
      return r;
    }

  }

  /**
   * A write path that keeps what it is handed; a test answers a write through its callback as the
   * batcher would. Refuses everything while {@link #full}.
   */
  public final class Writes implements WritePath {
    public final List<PendingWrite> submitted = new ArrayList<>();
    public final List<Long> answered = new ArrayList<>();
    public boolean full;

    @Override
    public long nanoTime() {
      return time.nanoTime();
    }

    @Override
    public boolean submit(PendingWrite write) {
      if (full) {
        return false;
      }
      submitted.add(write);
      return true;
    }

    @Override
    public void answered(long receivedNanos) {
      answered.add(receivedNanos);
    }
  }

  /** A resume store that keeps its sessions in {@link #stored}; answers at once. */
  private final class MapResumeStore implements ResumeStore {
    @Override
    public void create(StoredSession session, long nowMs) {
      stored.put(session.identity().sessionId(), session);
    }

    @Override
    public CompletionStage<Optional<StoredSession>> find(String sessionId) {
      return CompletableFuture.completedFuture(Optional.ofNullable(stored.get(sessionId)));
    }

    @Override
    public void refresh(String sessionId, long notAfterMs, long nowMs) {
    }

    @Override
    public void renew(String sessionId, long tokenExpiresAtMs, long notAfterMs, long nowMs) {
      stored.computeIfPresent(sessionId, (id, s) -> new StoredSession(s.identity(), tokenExpiresAtMs, s.createdAtMs()));
    }
  }
}
