package io.playline.gateway;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.playline.core.config.ConfigSource;
import io.playline.core.config.CoreConfig;
import io.playline.core.store.RedisConnections;
import io.playline.core.store.RedisKeys;
import io.playline.core.write.RedisHistoryWriter;
import io.playline.core.write.WriteBackSink;
import io.playline.core.write.WriteMetrics;
import io.playline.gateway.config.GatewayConfig;
import io.playline.gateway.push.PushPlug;
import io.playline.gateway.session.JwtTokens;
import io.playline.node.Node;
import io.playline.node.NodeConfig;
import io.playline.node.admin.Readiness;
import io.playline.node.loops.EventLoops;
import io.playline.testing.ManualTime;
import io.playline.testing.RedisNamespace;
import io.playline.testing.WsPlayerClient;
import io.playline.time.Time;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The one gateway fixture of every module's tests: a real {@link PlayerEdge} on a real {@link
 * Node}, assembled as the roles assemble them, on free loopback ports, writing to the test's share of the real Redis.
 * Only its core differs from production: no Kafka or HBase (no {@code HistoryCore}), so the
 * write-back is dropped, first-today moments are recorded in {@link #firstTodays}, and the node
 * serves no queries. Nodes started on one namespace share it, as the nodes of one deployment share
 * their Redis; with {@code crossNodePush} their pushes reach each other.
 */
public final class TestGateway implements AutoCloseable {
  public static final String SECRET = "test-secret-test-secret-test-secret!";

  /** A first-today moment the node announced. */
  public record FirstToday(long uid, String day, String deviceId) {}

  public final List<FirstToday> firstTodays = new CopyOnWriteArrayList<>();
  public final GatewayConfig config;
  public final NodeConfig nodeConfig;
  public final Node node;
  public final CoreConfig core;
  public final RedisKeys keys;
  public final PlayerEdge server;
  /** The push the node was built with. */
  public final PushPlug push;
  public final PrometheusMeterRegistry registry;
  public final Readiness readiness;
  public final EventLoops loops;
  public final RedisConnections redis;
  public final RedisHistoryWriter writer;

  /** A node with its pushes kept local, on {@code ns} with test defaults overridden by {@code overrides}. */
  public TestGateway(RedisNamespace ns, Map<String, String> overrides) {
    this(ns, overrides, false);
  }

  /** As {@link #TestGateway(RedisNamespace, Map)}; with {@code crossNodePush} pushes go through Redis to other nodes. */
  public TestGateway(RedisNamespace ns, Map<String, String> overrides, boolean crossNodePush) {
    this(ns.redisUri(), false, ns.keyPrefix(), overrides, crossNodePush);
  }

  /**
   * A node on the Redis at {@code redisUri} (with {@code cluster}, a seed node of a Redis Cluster),
   * its keys under {@code keyPrefix}.
   */
  public TestGateway(String redisUri, boolean cluster, String keyPrefix, Map<String, String> overrides,
      boolean crossNodePush) {
    this(redisUri, cluster, keyPrefix, overrides, crossNodePush, null);
  }

  /** A node with its pushes kept local, on {@code ns}, reading and scheduling by {@code time}. */
  public TestGateway(RedisNamespace ns, Map<String, String> overrides, Time time) {
    this(ns.redisUri(), false, ns.keyPrefix(), overrides, false, null, time);
  }

  /** As above, serving the stream's queries, deletes and clears with {@code history} (null: none). */
  public TestGateway(String redisUri, boolean cluster, String keyPrefix, Map<String, String> overrides,
      boolean crossNodePush, io.playline.core.query.@org.jspecify.annotations.Nullable HistoryService history) {
    this(redisUri, cluster, keyPrefix, overrides, crossNodePush, history, Time.SYSTEM);
  }

  /** As above, the node reading and scheduling by {@code time}. */
  public TestGateway(String redisUri, boolean cluster, String keyPrefix, Map<String, String> overrides,
      boolean crossNodePush, io.playline.core.query.@org.jspecify.annotations.Nullable HistoryService history,
      Time time) {
    Map<String, String> values = new HashMap<>(Map.of(
        "bind.host", "127.0.0.1", "ws.port", "0", "grpc.port", "0", "api.port", "0", "admin.port", "0",
        "frame.max.bytes", "4096", "auth.timeout", "1s", "redis.key.prefix", keyPrefix, "drain.grace", "0s"));
    // Every test client comes from 127.0.0.1: one address's new-connection budget would throttle
    // a whole test class, and one test's abuse would penalize the next; most tests authenticate
    // the same few uids again and again. Tests of those budgets set them.
    values.putAll(Map.of("connection.max.new.per.address.per.second", "1000000",
        "connection.max.new.per.address.burst", "1000000", "connection.abuse.penalty", "0s",
        "user.max.auths.per.minute", "1000000", "user.max.auths.burst", "1000000"));
    if (time instanceof ManualTime) {
      // A batch waiting for company would leave only when the test moves time: batches leave at once
      // (the batcher's own tests cover the wait on a manual time).
      values.put("heartbeat.ack.budget", "0s");
    }
    values.putAll(overrides);
    ConfigSource source = ConfigSource.empty().with(values);
    // "auth.secret" set to "" in the overrides: no HS256 key (a node verifying JWKS tokens only).
    String secret = values.containsKey("auth.secret") ? source.raw("auth.secret").orElse(null) : SECRET;
    nodeConfig = NodeConfig.from(source);
    config = GatewayConfig.from(source, secret);
    core = CoreConfig.from(source);
    keys = new RedisKeys(core.redisKeyPrefix());
    push = new PushPlug(nodeConfig.nodeId(), config.push(), crossNodePush);
    node = Node.builder(nodeConfig).time(time).applied(push).core((loop, meters, clock) -> {
      RedisConnections redis = RedisConnections.connect(redisUri, cluster, Duration.ofSeconds(5), loop);
      RedisHistoryWriter writer = new RedisHistoryWriter(core, redis, WriteBackSink.NONE,
          new WriteMetrics(meters, clock));
      return new Node.Core(core, redis, writer,
          (uid, day, device, platform, at) -> firstTodays.add(new FirstToday(uid, day, device)), history, () -> {
            writer.close();
            redis.close();
          });
    }).start();
    try {
      server = PlayerEdge.attach(node, config, push, null);
    } catch (RuntimeException e) {
      node.close();
      throw e;
    }
    registry = node.registry();
    readiness = node.readiness();
    loops = node.loops();
    redis = node.core().redis();
    writer = (RedisHistoryWriter) node.core().writer();
  }

  public static String token(long uid) {
    return JwtTokens.mint(SECRET, uid, Duration.ofHours(1), Instant.now());
  }

  /** The count of counter {@code name} with {@code tags}, 0 when it was never incremented. */
  public double counter(String name, String... tags) {
    var search = registry.find(name);
    if (tags.length > 0) {
      search = search.tags(tags);
    }
    var c = search.counter();
    return c == null ? 0 : c.count();
  }

  /** The value of gauge {@code name}, NaN when there is none. */
  public double gauge(String name) {
    var g = registry.find(name).gauge();
    return g == null ? Double.NaN : g.value();
  }

  public WsPlayerClient ws() {
    return WsPlayerClient.connect(server.wsAddress().getPort());
  }

  @Override
  public void close() {
    node.close();
  }
}
