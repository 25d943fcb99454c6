package io.playline.standalone;

import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.playline.core.HistoryCore;
import io.playline.core.config.ConfigSource;
import io.playline.core.store.RedisKeys;
import io.playline.gateway.EventLoops;
import io.playline.gateway.GatewayConfig;
import io.playline.gateway.GatewayServer;
import io.playline.gateway.admin.Readiness;
import io.playline.gateway.session.JwtAuthenticator;
import io.playline.gateway.session.RedisSessionStore;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One gateway-only process: history-core's write path (Redis write-through, write-back to Kafka)
 * and the gateway's servers, against Redis and Kafka that run elsewhere (e.g. a standalone's
 * embedded ones), with progress push across nodes through that Redis. No embedded servers, no job.
 * {@link #close()} stops the servers, then the core (which flushes the write-back). Thread-safe
 * to close from a shutdown hook.
 */
final class GatewayRole implements AutoCloseable {
  private final Deque<AutoCloseable> toClose = new ArrayDeque<>();
  private final Map<String, String> addresses = new LinkedHashMap<>();

  private GatewayRole() {}

  private void init(ConfigSource config, String redisUri, String kafkaBootstrap) {
    Secrets.Resolved secret = Secrets.resolve(config, true);
    GatewayConfig gateway = GatewayConfig.from(config, secret.secret());
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    toClose.push(registry::close);
    new JvmMemoryMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    JvmGcMetrics gc = new JvmGcMetrics();
    gc.bindTo(registry);
    toClose.push(gc);
    // The loops outlive the Redis client that may share one of them: created first, closed last.
    EventLoops loops = EventLoops.create(gateway.ioThreads());
    toClose.push(loops);
    HistoryCore core = HistoryCore.start(config, redisUri, kafkaBootstrap, gateway.nodeId(), registry,
        loops.redisLoop(gateway));
    toClose.push(core);
    GatewayServer server = GatewayServer.start(gateway, new GatewayServer.Wiring(core.config(), registry, new Readiness(),
        new JwtAuthenticator(secret.secret(), gateway.authClockSkew(), Clock.systemUTC()),
        new RedisSessionStore(core.redis().shared(), new RedisKeys(core.config().redisKeyPrefix()),
            gateway.sessionTtl(), gateway.nodeId()),
        core.writer(), core.firstToday(), core.redis()), loops);
    toClose.push(server);
    addresses.put("websocket", "ws://127.0.0.1:" + server.wsAddress().getPort() + GatewayConfig.WS_PATH);
    addresses.put("grpc", "127.0.0.1:" + server.grpcAddress().getPort());
    addresses.put("api", "127.0.0.1:" + server.apiAddress().getPort());
    addresses.put("admin", "http://127.0.0.1:" + server.adminAddress().getPort());
  }

  /** Connects and binds; on failure whatever started is stopped again. */
  static GatewayRole start(ConfigSource config, String redisUri, String kafkaBootstrap) {
    GatewayRole role = new GatewayRole();
    try {
      role.init(config, redisUri, kafkaBootstrap);
      return role;
    } catch (RuntimeException e) {
      role.close();
      throw e;
    }
  }

  /** This process's own addresses, as in a standalone's endpoints.json {@code playline} entry. */
  Map<String, String> addresses() {
    return java.util.Collections.unmodifiableMap(addresses);
  }

  @Override
  public synchronized void close() {
    while (!toClose.isEmpty()) {
      try {
        toClose.pop().close();
      } catch (Exception e) {
        org.slf4j.LoggerFactory.getLogger(GatewayRole.class).warn("Stopping a gateway part failed: {}", e.toString());
      }
    }
  }
}
