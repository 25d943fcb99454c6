package io.playline.client;

import io.playline.core.store.RedisConnections;
import io.playline.core.store.RedisKeys;
import io.playline.gateway.TestGateway;
import io.playline.gateway.session.JwtTokens;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.HistoryRecord;
import io.playline.testing.RedisNamespace;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.jspecify.annotations.Nullable;

/**
 * A real gateway (WebSocket and gRPC on free loopback ports) writing to one test's share of the
 * real Redis, that can be stopped and started again on the same ports, like a node restarted by a
 * deploy; sessions survive in Redis. Plus a Redis connection of the test's own to check what was
 * stored, and token-counting client builders.
 */
final class GatewayFixture implements AutoCloseable {
  static final String SECRET = TestGateway.SECRET;

  private final RedisNamespace ns;
  private final Map<String, String> overrides;
  private final RedisConnections checks;
  private final RedisKeys keys;
  final AtomicInteger tokenCalls = new AtomicInteger();
  private @Nullable TestGateway node;

  GatewayFixture(RedisNamespace ns, String... keyValues) {
    this.ns = ns;
    this.overrides = new HashMap<>();
    for (int i = 0; i < keyValues.length; i += 2) {
      overrides.put(keyValues[i], keyValues[i + 1]);
    }
    this.keys = new RedisKeys(ns.keyPrefix());
    this.checks = RedisConnections.connect(ns.redisUri(), false, Duration.ofSeconds(5));
    this.node = startNode(0, 0);
  }

  private TestGateway startNode(int wsPort, int grpcPort) {
    // SDK tests run with the gateway's production frame limit, auth timeout and drain.
    Map<String, String> values = new HashMap<>(Map.of(
        "ws.port", Integer.toString(wsPort), "grpc.port", Integer.toString(grpcPort), "heartbeat.interval", "1s",
        "frame.max.bytes", "65536", "auth.timeout", "10s", "drain.grace", "10s"));
    values.putAll(overrides);
    return new TestGateway(ns, values);
  }

  TestGateway node() {
    TestGateway n = node;
    if (n == null) {
      throw new IllegalStateException("gateway stopped");
    }
    return n;
  }

  int port(TransportKind transport) {
    return transport == TransportKind.WEBSOCKET ? node().server.wsAddress().getPort()
        : node().server.grpcAddress().getPort();
  }

  /** Stops the gateway; connected clients lose their connections. */
  void stop() {
    node().close();
    node = null;
  }

  /** Starts a fresh gateway on the given ports (retrying while the old sockets let go). */
  void start(int wsPort, int grpcPort) {
    Awaitility.await("gateway bound again").atMost(20, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(200))
        .ignoreExceptionsInstanceOf(IllegalStateException.class)
        .until(() -> {
          node = startNode(wsPort, grpcPort);
          return true;
        });
  }

  /** A client builder for {@code uid} on the current gateway, with fast test timings. */
  PlaylineClientBuilder client(TransportKind transport, long uid, String deviceId) {
    return PlaylineClient.builder()
        .endpoint("127.0.0.1", port(transport))
        .transport(transport)
        .tokenSupplier(() -> {
          tokenCalls.incrementAndGet();
          return CompletableFuture.completedFuture(token(uid));
        })
        .deviceId(deviceId)
        .platform("test")
        .backoff(Duration.ofMillis(50), Duration.ofMillis(500), Integer.MAX_VALUE)
        .connectTimeout(Duration.ofSeconds(5))
        .closeTimeout(Duration.ofSeconds(3));
  }

  static String token(long uid) {
    return JwtTokens.mint(SECRET, uid, Duration.ofHours(1), Instant.now());
  }

  /** The record Redis holds for the user's item, or null. */
  @Nullable HistoryRecord stored(long uid, Business business, long oid) throws Exception {
    byte[] b = checks.shared().hget(keys.records(uid), RedisKeys.member(business, oid)).get(5, TimeUnit.SECONDS);
    return b == null ? null : HistoryRecord.parseFrom(b);
  }

  @Override
  public void close() {
    if (node != null) {
      node.close();
    }
    checks.close();
  }
}
