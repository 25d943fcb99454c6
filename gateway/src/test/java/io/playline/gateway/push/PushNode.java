package io.playline.gateway.push;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.playline.core.store.RedisConnections;
import io.playline.gateway.PlayerEdge;
import io.playline.gateway.TestGateway;
import io.playline.gateway.session.JwtTokens;
import io.playline.node.push.PushKeys;
import io.playline.proto.v1.ServerFrame;
import io.playline.testing.Frames;
import io.playline.testing.RedisNamespace;
import io.playline.testing.WsPlayerClient;
import java.nio.charset.StandardCharsets;
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
  static final String SECRET = TestGateway.SECRET;

  final String nodeId;
  final TestGateway gateway;
  final PrometheusMeterRegistry registry;
  final RedisConnections redis;
  final PushKeys keys;
  final PlayerEdge server;

  PushNode(RedisNamespace ns, String nodeId, Map<String, String> overrides) {
    this(ns.redisUri(), false, ns.keyPrefix(), nodeId, overrides);
  }

  /** A node on the Redis (or, with {@code cluster}, the Redis Cluster seed) at {@code redisUri}. */
  PushNode(String redisUri, boolean cluster, String keyPrefix, String nodeId, Map<String, String> overrides) {
    this.nodeId = nodeId;
    Map<String, String> values = new HashMap<>(Map.of("io.threads", "2", "node.id", nodeId, "push.lookup.cache", "0s"));
    values.putAll(overrides);
    gateway = new TestGateway(redisUri, cluster, keyPrefix, values, true);
    registry = gateway.registry;
    redis = gateway.redis;
    server = gateway.server;
    keys = new PushKeys(gateway.core.redisKeyPrefix());
  }

  /** A player connection of {@code uid} on this node, authenticated as device {@code device}. */
  WsPlayerClient connect(long uid, String device) throws InterruptedException {
    WsPlayerClient c = WsPlayerClient.connect(server.wsAddress().getPort());
    c.send(Frames.auth(1, JwtTokens.mint(SECRET, uid, Duration.ofHours(1), Instant.now()), device, "test"));
    ServerFrame ok = c.next();
    assertThat(ok.hasAuthOk()).as("auth_ok, got %s", ok).isTrue();
    return c;
  }

  /** The node ids the shared user-nodes registry lists for {@code uid}, expired or not. */
  Set<String> registeredNodes(long uid) throws Exception {
    Map<byte[], byte[]> entries = redis.shared().hgetall(keys.nodes(uid)).get(5, TimeUnit.SECONDS);
    Set<String> nodes = new TreeSet<>();
    entries.keySet().forEach(k -> nodes.add(new String(k, StandardCharsets.UTF_8)));
    return nodes;
  }

  double counter(String name, String... tags) {
    return gateway.counter(name, tags);
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
    gateway.close();
  }
}
