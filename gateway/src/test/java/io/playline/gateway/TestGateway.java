package io.playline.gateway;

import io.playline.testing.WsPlayerClient;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.playline.core.CoreConfig;
import io.playline.core.config.ConfigSource;
import io.playline.core.store.RedisConnections;
import io.playline.core.store.RedisKeys;
import io.playline.core.write.RedisHistoryWriter;
import io.playline.core.write.WriteBackSink;
import io.playline.core.write.WriteMetrics;
import io.playline.gateway.admin.Readiness;
import io.playline.gateway.session.JwtAuthenticator;
import io.playline.gateway.session.JwtTokens;
import io.playline.gateway.session.RedisSessionStore;
import io.playline.testing.RedisNamespace;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/** A real gateway on free loopback ports, writing to the test's share of the real Redis. */
final class TestGateway implements AutoCloseable {
  static final String SECRET = "test-secret-test-secret-test-secret!";

  record FirstToday(long uid, String day, String deviceId) {}

  final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  final Readiness readiness = new Readiness();
  final List<FirstToday> firstTodays = new CopyOnWriteArrayList<>();
  final GatewayConfig config;
  final CoreConfig core;
  final RedisKeys keys;
  final EventLoops loops;
  final RedisConnections redis;
  final RedisHistoryWriter writer;
  final GatewayServer server;

  TestGateway(RedisNamespace ns, Map<String, String> overrides) {
    Map<String, String> values = new HashMap<>(Map.of(
        "bind.host", "127.0.0.1", "ws.port", "0", "grpc.port", "0", "api.port", "0", "admin.port", "0",
        "frame.max.bytes", "4096", "auth.timeout", "1s", "redis.key.prefix", ns.keyPrefix(), "drain.grace", "0s"));
    values.putAll(overrides);
    ConfigSource source = ConfigSource.empty().with(values);
    config = GatewayConfig.from(source, SECRET);
    core = CoreConfig.from(source);
    keys = new RedisKeys(core.redisKeyPrefix());
    // Wired as the gateway role wires it: the loops first, Redis on one of them (io.redis.shared).
    loops = EventLoops.create(config.ioThreads());
    redis = RedisConnections.connect(ns.redisUri(), false, Duration.ofSeconds(5),
        loops.redisLoop(config));
    writer = new RedisHistoryWriter(core, redis, WriteBackSink.NONE, new WriteMetrics(registry));
    server = GatewayServer.start(config, new GatewayServer.Wiring(core, registry, readiness,
        new JwtAuthenticator(SECRET, config.authClockSkew(), Clock.systemUTC()),
        new RedisSessionStore(redis.shared(), keys, config.sessionTtl(), config.nodeId()),
        writer, (uid, day, device, platform, time) -> firstTodays.add(new FirstToday(uid, day, device))), loops);
  }

  static String token(long uid) {
    return JwtTokens.mint(SECRET, uid, Duration.ofHours(1), Instant.now());
  }

  double counter(String name, String... tags) {
    var search = registry.find(name);
    if (tags.length > 0) {
      search = search.tags(tags);
    }
    var c = search.counter();
    return c == null ? 0 : c.count();
  }

  WsPlayerClient ws() {
    return WsPlayerClient.connect(server.wsAddress().getPort());
  }

  @Override
  public void close() {
    server.close();
    writer.close();
    redis.close();
    loops.close();
    registry.close();
  }
}
