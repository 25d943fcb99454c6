package io.playline.gateway.push;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.playline.core.CoreConfig;
import io.playline.core.config.ConfigSource;
import io.playline.core.store.RedisConnections;
import io.playline.core.store.RedisKeys;
import io.playline.core.write.RedisHistoryWriter;
import io.playline.core.write.WriteBackSink;
import io.playline.core.write.WriteMetrics;
import io.playline.gateway.GatewayConfig;
import io.playline.gateway.GatewayServer;
import io.playline.gateway.admin.Readiness;
import io.playline.gateway.session.JwtAuthenticator;
import io.playline.gateway.session.JwtTokens;
import io.playline.gateway.session.RedisSessionStore;
import io.playline.proto.v1.Auth;
import io.playline.proto.v1.ClientFrame;
import io.playline.proto.v1.ServerFrame;
import io.playline.testing.RedisNamespace;
import io.playline.testing.WsPlayerClient;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * One real gateway node for push tests: its own Redis client, event loops and free loopback
 * ports, node id {@code nodeId}, and the test's Redis key prefix, which every node of the test
 * shares (as the nodes of one deployment do).
 */
final class PushNode implements AutoCloseable {
  static final String SECRET = "push-test-secret-push-test-secret!";

  final String nodeId;
  final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  final RedisConnections redis;
  final PushKeys keys;
  private final RedisHistoryWriter writer;
  final GatewayServer server;

  PushNode(RedisNamespace ns, String nodeId, Map<String, String> overrides) {
    this.nodeId = nodeId;
    Map<String, String> values = new HashMap<>(Map.of(
        "bind.host", "127.0.0.1", "ws.port", "0", "grpc.port", "0", "api.port", "0", "admin.port", "0",
        "io.threads", "2", "redis.key.prefix", ns.keyPrefix(), "node.id", nodeId,
        "push.lookup.cache", "0s", "drain.grace", "0s"));
    values.putAll(overrides);
    ConfigSource source = ConfigSource.empty().with(values);
    GatewayConfig config = GatewayConfig.from(source, SECRET);
    CoreConfig core = CoreConfig.from(source);
    keys = new PushKeys(core.redisKeyPrefix());
    redis = RedisConnections.connect(ns.redisUri(), false, Duration.ofSeconds(5));
    writer = new RedisHistoryWriter(core, redis, WriteBackSink.NONE, new WriteMetrics(registry));
    server = GatewayServer.start(config, new GatewayServer.Wiring(core, registry, new Readiness(),
        new JwtAuthenticator(SECRET, config.authClockSkew(), Clock.systemUTC()),
        new RedisSessionStore(redis.shared(), new RedisKeys(core.redisKeyPrefix()), config.sessionTtl(), nodeId),
        writer, (uid, day, device, platform, time) -> { }, redis));
  }

  /** A player connection of {@code uid} on this node, authenticated as device {@code device}. */
  WsPlayerClient connect(long uid, String device) throws InterruptedException {
    WsPlayerClient c = WsPlayerClient.connect(server.wsAddress().getPort());
    c.send(ClientFrame.newBuilder().setSeq(1).setAuth(Auth.newBuilder()
        .setToken(JwtTokens.mint(SECRET, uid, Duration.ofHours(1), Instant.now()))
        .setDeviceId(device).setPlatform("test")).build());
    ServerFrame ok = c.next();
    assertThat(ok.hasAuthOk()).as("auth_ok, got %s", ok).isTrue();
    return c;
  }

  /** The node ids the shared session registry lists for {@code uid}, expired or not. */
  Set<String> registeredNodes(long uid) throws Exception {
    Map<byte[], byte[]> entries = redis.shared().hgetall(keys.nodes(uid)).get(5, TimeUnit.SECONDS);
    Set<String> nodes = new TreeSet<>();
    entries.keySet().forEach(k -> nodes.add(new String(k, StandardCharsets.UTF_8)));
    return nodes;
  }

  double counter(String name, String... tags) {
    var search = registry.find(name);
    if (tags.length > 0) {
      search = search.tags(tags);
    }
    var c = search.counter();
    return c == null ? 0 : c.count();
  }

  double syncs(String result) {
    return counter("playline.push.syncs", "result", result);
  }

  double routedRemote() {
    return counter("playline.push.routed", "to", "remote");
  }

  double routes() {
    return counter("playline.push.routes");
  }

  double receivedRemote() {
    return counter("playline.push.remote.received");
  }

  @Override
  public void close() {
    server.close();
    writer.close();
    redis.close();
    registry.close();
  }
}
