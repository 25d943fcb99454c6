package io.playline.gateway.session;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.playline.node.loops.LoopCounters;
import io.playline.proto.v1.ClientFrame;
import io.playline.proto.v1.Error.Code;
import java.util.EnumMap;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Every gateway meter, registered once per process on the injected registry. Names start with
 * {@code playline.}; Prometheus shows them with underscores (e.g. {@code playline_auth_identity_checks_total}).
 * Thread-safe.
 */
public final class GatewayMetrics {
  private final MeterRegistry registry;
  private final AtomicLong openConnections = new AtomicLong();
  private final Counter handshakeTimeouts;
  private final Counter connectionsOpened;
  private final Counter identityChecks;
  private final Counter authOk;
  private final Counter authRejected;
  private final Counter sessionResumes;
  private final Counter refreshed;
  private final Counter refreshRejected;
  private final Counter controlBeforeAuth;
  private final Counter pingRateExceeded;
  private final Counter sessionsReplaced;
  private final Counter sessionsOverCap;
  /**
   * Each registry's frames received by body type (indexed by ordinal), counted per frame on the
   * players' loops: one set per registry, which every {@code GatewayMetrics} on it adds to, as it
   * would to the registry's counters. Held here as long as the registry lives (the registry's
   * function counters hold theirs only weakly).
   */
  private static final Map<MeterRegistry, LoopCounters> FRAMES = new WeakHashMap<>();

  private final LoopCounters frames;
  private final Map<Code, Counter> errors = new EnumMap<>(Code.class);

  public GatewayMetrics(MeterRegistry registry) {
    this.registry = registry;
    registry.gauge("playline.connections.open", openConnections);
    handshakeTimeouts = Counter.builder("playline.connections.handshake.timeouts")
        .description("Connections closed for not finishing the WebSocket upgrade within handshake.timeout").register(registry);
    connectionsOpened = Counter.builder("playline.connections.opened").description("Player connections accepted").register(registry);
    identityChecks = Counter.builder("playline.auth.identity.checks")
        .description("Token verifications (identity service calls); one per connection at most").register(registry);
    authOk = Counter.builder("playline.auth").tag("result", "ok").register(registry);
    authRejected = Counter.builder("playline.auth").tag("result", "rejected").register(registry);
    sessionResumes = Counter.builder("playline.auth").tag("result", "resumed").register(registry);
    refreshed = Counter.builder("playline.auth").tag("result", "refreshed").register(registry);
    refreshRejected = Counter.builder("playline.auth").tag("result", "refresh_rejected").register(registry);
    String control = "WebSocket ping/pong frames refused, closing the connection";
    controlBeforeAuth = Counter.builder("playline.connections.control.refused").tag("reason", "before_auth")
        .description(control).register(registry);
    pingRateExceeded = Counter.builder("playline.connections.control.refused").tag("reason", "rate")
        .description(control).register(registry);
    String dropped = "Stored sessions deleted when a user authenticated: its device's older one, or past session.max.per.user";
    sessionsReplaced = Counter.builder("playline.sessions.dropped").tag("reason", "replaced").description(dropped)
        .register(registry);
    sessionsOverCap = Counter.builder("playline.sessions.dropped").tag("reason", "over_cap").description(dropped)
        .register(registry);
    frames = frames(registry);
    for (Code c : Code.values()) {
      if (c != Code.UNRECOGNIZED) {
        errors.put(c, Counter.builder("playline.errors").tag("code", c.name()).description("Error frames sent, by code")
            .register(registry));
      }
    }
  }

  private static LoopCounters frames(MeterRegistry registry) {
    synchronized (FRAMES) {
      return FRAMES.computeIfAbsent(registry, r -> {
        LoopCounters counters = new LoopCounters(ClientFrame.BodyCase.values().length);
        for (ClientFrame.BodyCase c : ClientFrame.BodyCase.values()) {
          FunctionCounter.builder("playline.frames.received", counters, f -> f.sum(c.ordinal()))
              .tag("type", c.name().toLowerCase(java.util.Locale.ROOT)).register(r);
        }
        return counters;
      });
    }
  }

  public MeterRegistry registry() {
    return registry;
  }

  public void handshakeTimeout() {
    handshakeTimeouts.increment();
  }

  public void connectionOpened() {
    connectionsOpened.increment();
    openConnections.incrementAndGet();
  }

  public void connectionClosed() {
    openConnections.decrementAndGet();
  }

  public void identityCheck() {
    identityChecks.increment();
  }

  public void authOk() {
    authOk.increment();
  }

  public void authRejected() {
    authRejected.increment();
  }

  public void sessionResumed() {
    sessionResumes.increment();
  }

  public void refreshed() {
    refreshed.increment();
  }

  public void refreshRejected() {
    refreshRejected.increment();
  }

  /** A ping or pong before authentication. */
  public void controlBeforeAuth() {
    controlBeforeAuth.increment();
  }

  /** More pings and pongs than connection.max.pings.per.second. */
  public void pingRateExceeded() {
    pingRateExceeded.increment();
  }

  /** {@code replaced} sessions of re-authenticated devices and {@code overCap} of others were deleted. */
  public void sessionsDropped(int replaced, int overCap) {
    sessionsReplaced.increment(replaced);
    sessionsOverCap.increment(overCap);
  }

  public void frame(ClientFrame.BodyCase type) {
    frames.add(type.ordinal(), 1);
  }

  public void error(Code code) {
    Counter c = errors.get(code);
    if (c != null) {
      c.increment();
    }
  }
}
