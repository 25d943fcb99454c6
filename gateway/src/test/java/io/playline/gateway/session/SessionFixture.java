package io.playline.gateway.session;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.playline.core.config.ConfigSource;
import io.playline.core.write.EventRules;
import io.playline.gateway.config.GatewayConfig;
import io.playline.gateway.session.GatewayMetrics;
import io.playline.gateway.TestGateway;
import io.playline.gateway.budget.UserBudgets;
import io.playline.gateway.push.ConnectionRegistry;
import io.playline.node.WriteLimits;
import io.playline.node.edge.ConnectionLimiter;
import io.playline.node.push.PushConfig;
import io.playline.node.push.PushMetrics;
import io.playline.node.push.SessionRegistry;
import io.playline.node.write.FlagCalendar;
import io.playline.testing.ManualTime;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What a {@link StreamSession} stands on, without Redis or a node: a {@link ManualTime}, meters on a
 * {@link SimpleMeterRegistry}, tokens verified by the real {@link JwtAuthenticator}, sessions kept in
 * a map, pushes kept on this node ({@link SessionRegistry#LOCAL}), no history queries and no write
 * path (a heartbeat whose events pass the budget would need one: tests stop before it).
 */
public final class SessionFixture {
  public final ManualTime time = new ManualTime();
  public final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  public final GatewayMetrics metrics = new GatewayMetrics(registry);
  public final Map<String, StoredSession> stored = new ConcurrentHashMap<>();
  public final GatewayConfig config;
  public final UserBudgets budgets;
  public final ConnectionLimiter limiter = new ConnectionLimiter(100, 100, 100);
  public final SessionServices services;

  public SessionFixture() {
    this(Map.of());
  }

  /** With the gateway's defaults overridden by {@code settings}. */
  public SessionFixture(Map<String, String> settings) {
    config = GatewayConfig.from(ConfigSource.load(null, Map.of(), new Properties(), settings), TestGateway.SECRET);
    budgets = new UserBudgets(config.maxUserEventsPerSecond(), config.maxUserDeletesPerMinute(),
        config.maxUserAuthsPerMinute(), registry, time::nanoTime, uid -> CompletableFuture.completedFuture(0));
    ConnectionRegistry connections = new ConnectionRegistry(SessionRegistry.LOCAL, PushConfig.from(ConfigSource.empty()),
        new PushMetrics(registry), time);
    services = new SessionServices(config, WriteLimits.from(ConfigSource.empty()),
        new JwtAuthenticator(TestGateway.SECRET, Duration.ZERO, time.clock()), new MapSessionStore(),
        null, new FlagCalendar(ZoneOffset.UTC, time), new EventRules(Duration.ofDays(1), Duration.ofMinutes(5)), metrics,
        time, connections, null, limiter, budgets);
  }

  /** A player token for {@code uid}, valid for an hour from the fixture's now. */
  public String token(long uid) {
    return JwtTokens.mint(TestGateway.SECRET, uid, Duration.ofHours(1), Instant.ofEpochMilli(time.millis()));
  }

  /** The count of {@code playline.errors{code}}: error frames sent with {@code code}. */
  public double errors(String code) {
    return registry.get("playline.errors").tag("code", code).counter().count();
  }

  /** A session store that keeps its sessions in {@link #stored}; answers at once. */
  private final class MapSessionStore implements SessionStore {
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
