package io.playline.client.internal;

import static io.playline.client.internal.Checks.checkArgument;

import io.playline.client.FlagStore;
import io.playline.client.PlaylineListener;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.DoubleSupplier;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * Every setting of one client, validated here (each message names the setting). Built by {@code
 * AbstractPlaylineClientBuilder}; tests build it directly to inject the clock and the random
 * source, or have the builder retime the loop ({@link #loopTime()}). What only one transport needs
 * (Netty's event loop group, an OkHttp client) stays with that transport's builder. Immutable.
 */
public final class ClientConfig {
  private final List<Endpoint> endpoints;
  private final String webSocketPath;
  private final Supplier<? extends CompletionStage<String>> tokens;
  private final String deviceId;
  private final String platform;
  private final FlagStore flagStore;
  private final Duration backoffBase;
  private final Duration backoffCap;
  private final int maxAttempts;
  private final int maxUnackedEvents;
  private final int maxEventsPerHeartbeat;
  private final Duration connectTimeout;
  private final Duration requestTimeout;
  private final Duration closeTimeout;
  private final List<PlaylineListener> listeners;
  private final @Nullable Executor callbackExecutor;
  private final Clock clock;
  private final DoubleSupplier random;
  private final @Nullable Tls tls;
  private final UnaryOperator<Loop> loopTime;

  /** Longest device id accepted, in UTF-8 bytes (the gateway's default {@code device.id.max.bytes}). */
  public static final int MAX_DEVICE_ID_BYTES = 64;
  /** Longest platform accepted, in UTF-8 bytes (the gateway's default {@code platform.max.bytes}). */
  public static final int MAX_PLATFORM_BYTES = 32;

  /**
   * @param endpoints gateway nodes (host and port of that transport); the client connects to the
   *     first and moves to the next one each time a connection ends or fails, so a dead or draining
   *     node is left for another
   * @param webSocketPath the WebSocket path ({@code /v1/stream})
   * @param tokens fetches a fresh token; called at the first connect and whenever the session
   *     cannot be resumed
   * @param deviceId stable id of this installation (Auth.device_id)
   * @param platform e.g. "android", "tv" (Auth.platform); may be empty
   * @param flagStore where the first-today flag date is kept per user
   * @param backoffBase ceiling of the first reconnect delay
   * @param backoffCap largest reconnect delay
   * @param maxAttempts consecutive failed connection attempts before giving up ({@code CLOSED})
   * @param maxUnackedEvents items kept until acked; beyond it the oldest are dropped
   * @param maxEventsPerHeartbeat events per Heartbeat frame (the server's limit, 100 by default)
   * @param connectTimeout from starting an attempt (token, connect, handshake) to AuthOk
   * @param requestTimeout from calling a query to its answer
   * @param closeTimeout how long {@code close()} waits for the final flush to be acked
   * @param listeners told about acks, first-today, syncs, errors and state
   * @param callbackExecutor where listeners run and futures complete, or null for the event loop
   * @param clock wall clock for event times
   * @param random uniform {@code [0, 1)} values for jitter
   * @param tls TLS to the gateway (wss, gRPC over TLS), or null for plain text
   * @param loopTime what the client does to its runtime's loop before running on it ({@link
   *     #loopTime()}); {@link UnaryOperator#identity()} in production
   */
  public ClientConfig(
      List<Endpoint> endpoints,
      String webSocketPath,
      Supplier<? extends CompletionStage<String>> tokens,
      String deviceId,
      String platform,
      FlagStore flagStore,
      Duration backoffBase,
      Duration backoffCap,
      int maxAttempts,
      int maxUnackedEvents,
      int maxEventsPerHeartbeat,
      Duration connectTimeout,
      Duration requestTimeout,
      Duration closeTimeout,
      List<PlaylineListener> listeners,
      @Nullable Executor callbackExecutor,
      Clock clock,
      DoubleSupplier random,
      @Nullable Tls tls,
      UnaryOperator<Loop> loopTime) {
    checkArgument(!endpoints.isEmpty(), "endpoint: not set (expected: endpoint(host, port))");
    checkArgument(webSocketPath.startsWith("/"), "webSocketPath: '%s' (expected: starting with /)", webSocketPath);
    checkLabels(deviceId, platform);
    checkArgument(backoffBase.toMillis() >= 1, "backoffBase: %s (expected: >= 1 ms)", backoffBase);
    checkArgument(backoffCap.compareTo(backoffBase) >= 0, "backoffCap: %s (expected: >= backoffBase %s)",
        backoffCap, backoffBase);
    checkArgument(maxAttempts > 0, "maxAttempts: %s (expected: > 0)", maxAttempts);
    checkArgument(maxUnackedEvents > 0, "maxUnackedEvents: %s (expected: > 0)", maxUnackedEvents);
    checkArgument(maxEventsPerHeartbeat > 0 && maxEventsPerHeartbeat <= 10_000,
        "maxEventsPerHeartbeat: %s (expected: 1..10000)", maxEventsPerHeartbeat);
    checkArgument(positive(connectTimeout), "connectTimeout: %s (expected: > 0)", connectTimeout);
    checkArgument(positive(requestTimeout), "requestTimeout: %s (expected: > 0)", requestTimeout);
    checkArgument(positive(closeTimeout), "closeTimeout: %s (expected: > 0)", closeTimeout);
    this.endpoints = Collections.unmodifiableList(new ArrayList<>(endpoints));
    this.webSocketPath = webSocketPath;
    this.tokens = tokens;
    this.deviceId = deviceId;
    this.platform = platform;
    this.flagStore = flagStore;
    this.backoffBase = backoffBase;
    this.backoffCap = backoffCap;
    this.maxAttempts = maxAttempts;
    this.maxUnackedEvents = maxUnackedEvents;
    this.maxEventsPerHeartbeat = maxEventsPerHeartbeat;
    this.connectTimeout = connectTimeout;
    this.requestTimeout = requestTimeout;
    this.closeTimeout = closeTimeout;
    this.listeners = Collections.unmodifiableList(new ArrayList<>(listeners));
    this.callbackExecutor = callbackExecutor;
    this.clock = clock;
    this.random = random;
    this.tls = tls;
    this.loopTime = loopTime;
  }

  /** Gateway nodes (host and port of the transport), tried in turn. */
  public List<Endpoint> endpoints() {
    return endpoints;
  }

  /** The WebSocket path ({@code /v1/stream}). */
  public String webSocketPath() {
    return webSocketPath;
  }

  /** Fetches a fresh token; called at the first connect and whenever the session cannot be resumed. */
  public Supplier<? extends CompletionStage<String>> tokens() {
    return tokens;
  }

  /** Stable id of this installation (Auth.device_id). */
  public String deviceId() {
    return deviceId;
  }

  /** E.g. "android", "tv" (Auth.platform); may be empty. */
  public String platform() {
    return platform;
  }

  /** Where the first-today flag date is kept per user. */
  public FlagStore flagStore() {
    return flagStore;
  }

  /** Ceiling of the first reconnect delay. */
  public Duration backoffBase() {
    return backoffBase;
  }

  /** Largest reconnect delay. */
  public Duration backoffCap() {
    return backoffCap;
  }

  /** Consecutive failed connection attempts before giving up ({@code CLOSED}). */
  public int maxAttempts() {
    return maxAttempts;
  }

  /** Items kept until acked; beyond it the oldest are dropped. */
  public int maxUnackedEvents() {
    return maxUnackedEvents;
  }

  /** Events per Heartbeat frame (the server's limit, 100 by default). */
  public int maxEventsPerHeartbeat() {
    return maxEventsPerHeartbeat;
  }

  /** From starting an attempt (token, connect, handshake) to AuthOk. */
  public Duration connectTimeout() {
    return connectTimeout;
  }

  /** From calling a query to its answer. */
  public Duration requestTimeout() {
    return requestTimeout;
  }

  /** How long {@code close()} waits for the final flush to be acked. */
  public Duration closeTimeout() {
    return closeTimeout;
  }

  /** Told about acks, first-today, syncs, errors and state. */
  public List<PlaylineListener> listeners() {
    return listeners;
  }

  /** Where listeners run and futures complete, or null for the event loop. */
  public @Nullable Executor callbackExecutor() {
    return callbackExecutor;
  }

  /** Wall clock for event times. */
  public Clock clock() {
    return clock;
  }

  /** Uniform {@code [0, 1)} values for jitter. */
  public DoubleSupplier random() {
    return random;
  }

  /** TLS to the gateway (wss, gRPC over TLS), or null for plain text. */
  public @Nullable Tls tls() {
    return tls;
  }

  /**
   * Applied to the runtime's loop before the client runs on it: the identity in production. A test
   * against a real gateway passes one that keeps the loop's thread ({@link Loop#inLoop}, {@link
   * Loop#execute}) and takes its timers and clock ({@link Loop#schedule}, {@link Loop#nowMs}) from a
   * manual time the test moves, so token refreshes, budgets' waits and heartbeats happen when the
   * test says, not after seconds of waiting. Only the session's timing: the transports keep the
   * runtime's own loop.
   */
  public UnaryOperator<Loop> loopTime() {
    return loopTime;
  }

  /**
   * TLS to the gateway: the server's certificate must chain to {@code trustedCertificates} (PEM,
   * one or more CA certificates), or to the JVM's default trust store when null, and name the
   * endpoint's host.
   */
  public static final class Tls {
    private final @Nullable Path trustedCertificates;

    public Tls(@Nullable Path trustedCertificates) {
      checkArgument(trustedCertificates == null || Files.isReadable(trustedCertificates),
          "trustedCertificates: %s (expected: a readable PEM file)", trustedCertificates);
      this.trustedCertificates = trustedCertificates;
    }

    /** The CA certificates to trust (PEM), or null for the platform's. */
    public @Nullable Path trustedCertificates() {
      return trustedCertificates;
    }
  }

  /** One gateway node: its host and the port of the client's transport. */
  public static final class Endpoint {
    private final String host;
    private final int port;

    public Endpoint(String host, int port) {
      checkArgument(!host.trim().isEmpty(), "endpoint host: '%s' (expected: not blank)", host);
      checkArgument(port > 0 && port <= 65_535, "endpoint port: %s (expected: 1..65535)", port);
      this.host = host;
      this.port = port;
    }

    public String host() {
      return host;
    }

    public int port() {
      return port;
    }

    @Override
    public String toString() {
      return host + ":" + port;
    }
  }

  /** The limits the gateway applies at auth by default: a longer label would be refused there. */
  public static void checkLabels(String deviceId, String platform) {
    int device = deviceId.getBytes(StandardCharsets.UTF_8).length;
    checkArgument(device > 0 && device <= MAX_DEVICE_ID_BYTES, "deviceId: '%s' (expected: 1..%s UTF-8 bytes)", deviceId,
        MAX_DEVICE_ID_BYTES);
    checkArgument(platform.getBytes(StandardCharsets.UTF_8).length <= MAX_PLATFORM_BYTES,
        "platform: '%s' (expected: at most %s UTF-8 bytes)", platform, MAX_PLATFORM_BYTES);
  }

  private static boolean positive(Duration d) {
    return !d.isNegative() && !d.isZero();
  }

  /** The backoff these settings describe. */
  public Backoff backoff() {
    return new Backoff(backoffBase.toMillis(), backoffCap.toMillis(), random);
  }
}
