package io.playline.client;

import io.playline.client.okhttp.OkHttpPlaylineClient;
import io.playline.core.store.RedisConnections;
import io.playline.core.store.RedisKeys;
import io.playline.gateway.TestGateway;
import io.playline.gateway.session.JwtTokens;
import io.playline.proto.lite.v1.Business;
import io.playline.proto.lite.v1.HistoryRecord;
import io.playline.testing.RedisNamespace;
import io.playline.time.Time;
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
 * stored, and token-counting client builders. The node reads and schedules by the machine's time,
 * or by a {@code ManualTime} the test moves (with {@link ManualClientTime} for its clients).
 */
final class GatewayFixture implements AutoCloseable {
  static final String SECRET = TestGateway.SECRET;

  private final RedisNamespace ns;
  private final Map<String, String> overrides;
  private final Time time;
  private final RedisConnections checks;
  private final RedisKeys keys;
  final AtomicInteger tokenCalls = new AtomicInteger();
  private @Nullable TestGateway node;

  GatewayFixture(RedisNamespace ns, String... keyValues) {
    this(ns, Time.SYSTEM, keyValues);
  }

  /** A gateway reading and scheduling by {@code time}. */
  GatewayFixture(RedisNamespace ns, Time time, String... keyValues) {
    this.ns = ns;
    this.time = time;
    this.overrides = new HashMap<>();
    for (int i = 0; i < keyValues.length; i += 2) {
      overrides.put(keyValues[i], keyValues[i + 1]);
    }
    this.keys = new RedisKeys(ns.keyPrefix());
    this.checks = RedisConnections.connect(ns.redisUri(), false, Duration.ofSeconds(5));
    this.node = startNode(0, 0);
  }

  private TestGateway startNode(int wsPort, int grpcPort) {
    return new TestGateway(ns, settings(wsPort, grpcPort, overrides), time);
  }

  /** The gateway settings of every SDK test's node: production frame limit, auth timeout and drain. */
  static Map<String, String> settings(int wsPort, int grpcPort, Map<String, String> overrides) {
    Map<String, String> values = new HashMap<>(Map.of(
        "ws.port", Integer.toString(wsPort), "grpc.port", Integer.toString(grpcPort), "heartbeat.interval", "1s",
        "frame.max.bytes", "65536", "auth.timeout", "10s", "drain.grace", "10s"));
    values.putAll(overrides);
    return values;
  }

  TestGateway node() {
    TestGateway n = node;
    if (n == null) {
      throw new IllegalStateException("gateway stopped");
    }
    return n;
  }

  int port(Wire wire) {
    return wire.grpc() ? node().server.grpcAddress().getPort() : node().server.wsAddress().getPort();
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

  /** A client builder over {@code wire} for {@code uid} on the current gateway, with fast test timings. */
  AbstractPlaylineClientBuilder<?> client(Wire wire, long uid, String deviceId) {
    return switch (wire) {
      case WEBSOCKET -> netty(TransportKind.WEBSOCKET, uid, deviceId);
      case GRPC -> netty(TransportKind.GRPC, uid, deviceId);
      case OKHTTP -> settings(OkHttpPlaylineClient.builder(), wire, uid, deviceId);
    };
  }

  /** A Netty client builder (for its own settings, such as the event loop group). */
  PlaylineClientBuilder netty(TransportKind transport, long uid, String deviceId) {
    Wire wire = transport == TransportKind.GRPC ? Wire.GRPC : Wire.WEBSOCKET;
    return settings(PlaylineClient.builder().transport(transport), wire, uid, deviceId);
  }

  private <B extends AbstractPlaylineClientBuilder<B>> B settings(B builder, Wire wire, long uid, String deviceId) {
    return builder
        .endpoint("127.0.0.1", port(wire))
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

  /** The record Redis holds for the user's item, or null (the SDK's lite message, read from the gateway's bytes). */
  @Nullable HistoryRecord stored(long uid, Business business, long oid) throws Exception {
    io.playline.proto.v1.Business serverBusiness = io.playline.proto.v1.Business.forNumber(business.getNumber());
    byte[] b = checks.shared().hget(keys.records(uid), RedisKeys.member(serverBusiness, oid)).get(5, TimeUnit.SECONDS);
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
