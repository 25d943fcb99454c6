package io.playline.gateway;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.playline.core.config.ConfigSource;
import io.playline.gateway.admin.Readiness;
import io.playline.gateway.session.JwtAuthenticator;
import io.playline.gateway.session.JwtTokens;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/** A real gateway on free loopback ports with test-sized limits. */
final class TestGateway implements AutoCloseable {
  static final String SECRET = "test-secret-test-secret-test-secret!";

  final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  final Readiness readiness = new Readiness();
  final GatewayConfig config;
  final GatewayServer server;

  TestGateway(Map<String, String> overrides) {
    Map<String, String> values = new HashMap<>(Map.of(
        "bind.host", "127.0.0.1", "ws.port", "0", "grpc.port", "0", "api.port", "0", "admin.port", "0",
        "frame.max.bytes", "4096", "auth.timeout", "1s"));
    values.putAll(overrides);
    config = GatewayConfig.from(ConfigSource.empty().with(values), SECRET);
    server = GatewayServer.start(config, registry, readiness,
        new JwtAuthenticator(SECRET, config.authClockSkew(), Clock.systemUTC()));
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

  @Override
  public void close() {
    server.close();
    registry.close();
  }
}
