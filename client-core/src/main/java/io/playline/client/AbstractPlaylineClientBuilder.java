package io.playline.client;

import static io.playline.client.internal.Checks.checkArgument;

import io.playline.client.internal.ClientConfig;
import io.playline.client.internal.Loop;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * The settings every {@link AbstractPlaylineClient} has, whatever its wire; each transport's
 * builder ({@code PlaylineClient.builder()}, {@code OkHttpPlaylineClient.builder()}) adds its own.
 * Every setter checks its argument at once, and {@link #build()} checks the whole (an {@link
 * IllegalArgumentException} names the setting). Required: {@link #endpoint}, {@link
 * #tokenSupplier} and {@link #deviceId}. Not thread-safe; build on one thread.
 *
 * @param <B> the concrete builder, returned by every setter
 */
public abstract class AbstractPlaylineClientBuilder<B extends AbstractPlaylineClientBuilder<B>> {
  private final List<ClientConfig.Endpoint> endpoints = new ArrayList<>();
  private @Nullable Supplier<? extends CompletionStage<String>> tokens;
  private @Nullable String deviceId;
  private String platform = "";
  private FlagStore flagStore = FlagStore.inMemory();
  private Duration backoffBase = Duration.ofMillis(500);
  private Duration backoffCap = Duration.ofSeconds(30);
  private int maxAttempts = Integer.MAX_VALUE;
  private int maxUnackedEvents = 1_000;
  private int maxEventsPerHeartbeat = 100;
  private Duration connectTimeout = Duration.ofSeconds(10);
  private Duration requestTimeout = Duration.ofSeconds(30);
  private Duration closeTimeout = Duration.ofSeconds(5);
  private final List<PlaylineListener> listeners = new ArrayList<>();
  private @Nullable Executor callbackExecutor;
  private ClientConfig.@Nullable Tls tls;
  private @Nullable Clock testClock;
  private UnaryOperator<Loop> loopTime = UnaryOperator.identity();

  protected AbstractPlaylineClientBuilder() {}

  /** This builder, as its concrete type. */
  protected abstract B self();

  /**
   * The gateway: host and the port of the chosen transport (8080 WebSocket, 9090 gRPC by default).
   * Replaces any endpoint set before.
   */
  public B endpoint(String host, int port) {
    endpoints.clear();
    endpoints.add(new ClientConfig.Endpoint(host, port));
    return self();
  }

  /**
   * Another gateway node. The client connects to the first endpoint and moves on to the next one
   * (round robin) each time a connection ends or fails, so a killed or draining node is left for
   * another while the session, unacked events and the first-today date carry over.
   */
  public B addEndpoint(String host, int port) {
    endpoints.add(new ClientConfig.Endpoint(host, port));
    return self();
  }

  /**
   * Where tokens come from (e.g. your login service): called at the first connect, before the
   * connection's token expires (at 75-90 % of its life, to send a {@code Refresh}), and when the
   * gateway cannot resume the session (expired) or rejects the token. Called on the
   * client's event loop, so it must not block: return a stage (it may complete on any thread).
   * The token is never logged and is forgotten once a connection is authenticated.
   */
  public B tokenSupplier(Supplier<? extends CompletionStage<String>> tokens) {
    this.tokens = Objects.requireNonNull(tokens, "tokenSupplier");
    return self();
  }

  /** Stable id of this installation: 1..64 UTF-8 bytes (the gateway refuses longer ones at auth). */
  public B deviceId(String deviceId) {
    ClientConfig.checkLabels(deviceId, "");
    this.deviceId = deviceId;
    return self();
  }

  /** Short platform name, e.g. "android", "ios", "web", "tv": at most 32 UTF-8 bytes (default empty). */
  public B platform(String platform) {
    ClientConfig.checkLabels("d", platform);
    this.platform = platform;
    return self();
  }

  /** Where the first-today date is kept (default {@link FlagStore#inMemory()}). */
  public B flagStore(FlagStore flagStore) {
    this.flagStore = Objects.requireNonNull(flagStore, "flagStore");
    return self();
  }

  /**
   * Reconnect backoff: retry {@code n} waits a uniformly random time in {@code [0, min(cap, base *
   * 2^n)]} (defaults 500 ms, 30 s); after {@code maxAttempts} consecutive failed attempts the
   * client gives up and is {@link ConnectionState#CLOSED} (default: never gives up).
   */
  public B backoff(Duration base, Duration cap, int maxAttempts) {
    checkArgument(base.toMillis() >= 1, "backoffBase: %s (expected: >= 1 ms)", base);
    checkArgument(cap.compareTo(base) >= 0, "backoffCap: %s (expected: >= backoffBase %s)", cap, base);
    checkArgument(maxAttempts > 0, "maxAttempts: %s (expected: > 0)", maxAttempts);
    this.backoffBase = base;
    this.backoffCap = cap;
    this.maxAttempts = maxAttempts;
    return self();
  }

  /** Items kept until acked (default 1000); beyond it the oldest report is dropped and counted. */
  public B maxUnackedEvents(int maxUnackedEvents) {
    checkArgument(maxUnackedEvents > 0, "maxUnackedEvents: %s (expected: > 0)", maxUnackedEvents);
    this.maxUnackedEvents = maxUnackedEvents;
    return self();
  }

  /** Events per heartbeat frame (default 100, the gateway's default limit). */
  public B maxEventsPerHeartbeat(int maxEventsPerHeartbeat) {
    checkArgument(maxEventsPerHeartbeat > 0 && maxEventsPerHeartbeat <= 10_000,
        "maxEventsPerHeartbeat: %s (expected: 1..10000)", maxEventsPerHeartbeat);
    this.maxEventsPerHeartbeat = maxEventsPerHeartbeat;
    return self();
  }

  /** Time from starting an attempt (token, TCP, upgrade) to AuthOk (default 10 s). */
  public B connectTimeout(Duration connectTimeout) {
    checkArgument(positive(connectTimeout), "connectTimeout: %s (expected: > 0)", connectTimeout);
    this.connectTimeout = connectTimeout;
    return self();
  }

  /** Time from calling a query to its answer, including waiting for a connection (default 30 s). */
  public B requestTimeout(Duration requestTimeout) {
    checkArgument(positive(requestTimeout), "requestTimeout: %s (expected: > 0)", requestTimeout);
    this.requestTimeout = requestTimeout;
    return self();
  }

  /** How long {@link AbstractPlaylineClient#close()} waits for the final flush to be acked (default 5 s). */
  public B closeTimeout(Duration closeTimeout) {
    checkArgument(positive(closeTimeout), "closeTimeout: %s (expected: > 0)", closeTimeout);
    this.closeTimeout = closeTimeout;
    return self();
  }

  /**
   * Connects over TLS (wss, or gRPC over TLS), trusting the JVM's default certificate authorities;
   * the gateway's certificate must name the endpoint's host. For a gateway with {@code tls.cert}.
   */
  public B useTls() {
    this.tls = new ClientConfig.Tls(null);
    return self();
  }

  /**
   * Connects over TLS trusting only the certificate authorities in {@code caPem} (one or more PEM
   * certificates), e.g. a company CA; the gateway's certificate must chain to one of them and name
   * the endpoint's host. The file is read when the client is built.
   */
  public B trustCertificates(Path caPem) {
    this.tls = new ClientConfig.Tls(Objects.requireNonNull(caPem, "trustCertificates"));
    return self();
  }

  /** Adds a listener; listeners are called in the order added. */
  public B listener(PlaylineListener listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"));
    return self();
  }

  /**
   * Runs listeners and completes futures on {@code executor} instead of the client's event loop
   * (the default, where they must not block). Use a single-threaded executor to keep their order.
   */
  public B callbackExecutor(Executor executor) {
    this.callbackExecutor = Objects.requireNonNull(executor, "callbackExecutor");
    return self();
  }

  /**
   * Tests only, and not API (package-private): event times from {@code wall} instead of the
   * machine's clock, and the runtime's loop passed through {@code loopTime} ({@link
   * ClientConfig#loopTime()}), so a test against a real gateway moves the client's time with the
   * gateway's instead of waiting for it.
   */
  B time(Clock wall, UnaryOperator<Loop> loopTime) {
    this.testClock = Objects.requireNonNull(wall, "wall");
    this.loopTime = Objects.requireNonNull(loopTime, "loopTime");
    return self();
  }

  /** Validates everything, creates the client and starts connecting in the background. */
  public abstract AbstractPlaylineClient build();

  /** The validated settings, with {@code clock} for event times (unless a test set its own). */
  protected ClientConfig config(Clock clock) {
    checkArgument(!endpoints.isEmpty(), "endpoint: not set (expected: endpoint(host, port))");
    checkArgument(tokens != null, "tokenSupplier: not set (expected: a token source)");
    checkArgument(deviceId != null, "deviceId: not set (expected: a stable installation id)");
    return new ClientConfig(endpoints, "/v1/stream", Objects.requireNonNull(tokens),
        Objects.requireNonNull(deviceId), platform, flagStore, backoffBase, backoffCap, maxAttempts, maxUnackedEvents,
        maxEventsPerHeartbeat, connectTimeout, requestTimeout, closeTimeout, listeners,
        callbackExecutor, testClock != null ? testClock : clock, () -> ThreadLocalRandom.current().nextDouble(), tls,
        loopTime);
  }

  private static boolean positive(Duration d) {
    return !d.isNegative() && !d.isZero();
  }
}
