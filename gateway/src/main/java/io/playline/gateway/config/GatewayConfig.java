package io.playline.gateway.config;

import io.playline.core.config.ConfigException;
import io.playline.core.config.ConfigSource;
import io.playline.node.auth.Hs256;
import io.playline.node.edge.AddressLimitsConfig;
import io.playline.node.edge.EdgeSettings;
import io.playline.node.edge.TrustedProxies;
import io.playline.node.push.PushConfig;
import io.playline.node.settings.NodeSettings;
import java.time.Duration;

/**
 * What the player edge needs to know about its ports and its limits, beside what its {@code Node}
 * is built with ({@code NodeConfig}: node id, bind address, threads, admin port, TLS, batching, write
 * limits), which the edge reads from the node rather than copying here. Every limit is
 * named by its config key (see {@link #from}) and validated here; each key's default and range are in
 * docs/configuration.md.
 *
 * @param wsPort WebSocket port ({@code ws.port})
 * @param grpcPort player gRPC port ({@code grpc.port})
 * @param authSecret HS256 secret ({@code auth.secret}, at least 32 bytes)
 * @param jwks RS256 / ES256 tokens from an identity provider's key set ({@code auth.jwks.url},
 *     {@code auth.issuer}, {@code auth.audience}; {@link JwksConfig})
 * @param authTimeout time allowed between connect and a valid Auth frame ({@code auth.timeout})
 * @param handshakeTimeout time a new connection has to finish the WebSocket upgrade or the HTTP/2
 *     handshake before it is closed ({@code handshake.timeout})
 * @param heartbeatInterval cadence the client is told in AuthOk ({@code heartbeat.interval})
 * @param idleTimeout no frame for this long closes the connection ({@code idle.timeout})
 * @param maxFrameBytes largest accepted client frame ({@code frame.max.bytes})
 * @param maxFramesPerSecond frames per second per connection ({@code connection.max.frames.per.second})
 * @param maxPingsPerSecond WebSocket ping and pong frames per second per authenticated connection
 *     ({@code connection.max.pings.per.second}); none is accepted before authentication
 * @param maxUnsentBytes bytes that may wait unsent on one player connection before it is closed as
 *     a slow reader with SLOW_CONSUMER ({@code connection.max.unsent.bytes})
 * @param maxConnections concurrent player connections on this node ({@code connection.max})
 * @param maxConnectionsPerAddress concurrent connections per remote IP ({@code connection.max.per.address})
 * @param addresses new connections per remote IP and the penalty after abuse ({@code
 *     connection.max.new.per.address.*}, {@code connection.abuse.penalty}; {@link AddressLimitsConfig})
 * @param proxyProtocol the WebSocket port expects a PROXY protocol (v1 or v2) header first and takes
 *     the client's address from it ({@code proxy.protocol})
 * @param proxyTrusted the peers allowed to send that header; others are closed at accept ({@code
 *     proxy.trusted.cidrs})
 * @param maxConnectionsPerUser concurrent authenticated connections of one user on this node
 *     ({@code connection.max.per.user})
 * @param maxUserEventsPerSecond heartbeat events per second of one user across its connections on
 *     this node ({@code user.max.events.per.second})
 * @param maxUserDeletesPerMinute items deleted (a clear counts one) per minute by one user over the
 *     player stream, across its connections on this node ({@code user.max.deletes.per.minute})
 * @param maxUserAuthsPerMinute authentications of one user per minute on this node ({@code
 *     user.max.auths.per.minute})
 * @param maxUserAuthsBurst how many of those one user may spend at once ({@code user.max.auths.burst})
 * @param authRefusalHold how long the answer to an authentication over its user's budget is held back
 *     ({@code user.auth.refusal.hold}; 0 = at once)
 * @param maxHeldAuthRefusals connections held so at once on this node ({@code
 *     user.auth.refusal.hold.max.connections})
 * @param maxUserRefusalsBeforeClose heartbeats with events one connection may send during the
 *     retry_after_ms of its last events refusal before it is closed RATE_LIMITED ({@code
 *     user.max.refusals.before.close})
 * @param authExpiryGrace how long past its credential's expiry a connection without a {@code
 *     Refresh} is kept before TOKEN_EXPIRED closes it ({@code auth.expiry.grace})
 * @param sessionTtl life of a server-side session without activity ({@code session.ttl})
 * @param sessionMaxAge a session is resumable at most this long after the token that created it
 *     was verified, however often it is used or refreshed ({@code session.max.age})
 * @param sessionMaxPerUser resumable sessions stored per user; a device's new session replaces its
 *     old one ({@code session.max.per.user})
 * @param drainGrace on shutdown, how long connections get to move after being sent {@code Reconnect}
 *     before they are closed with DRAINING ({@code drain.grace}; 0 closes at once)
 * @param drainSpread each connection is asked to reconnect after a random delay up to this, so
 *     clients do not all arrive at the other nodes at once ({@code drain.reconnect.spread})
 * @param push progress push to other devices ({@code sync.coalesce.window}, {@code push.registry.ttl})
 */
public record GatewayConfig(
    int wsPort,
    int grpcPort,
    @org.jspecify.annotations.Nullable String authSecret,
    JwksConfig jwks,
    Duration authTimeout,
    Duration handshakeTimeout,
    Duration authExpiryGrace,
    Duration heartbeatInterval,
    Duration idleTimeout,
    int maxFrameBytes,
    int maxFramesPerSecond,
    int maxPingsPerSecond,
    int maxUnsentBytes,
    int maxConnections,
    int maxConnectionsPerAddress,
    AddressLimitsConfig addresses,
    boolean proxyProtocol,
    TrustedProxies proxyTrusted,
    int maxConnectionsPerUser,
    int maxUserEventsPerSecond,
    int maxUserDeletesPerMinute,
    int maxUserAuthsPerMinute,
    int maxUserAuthsBurst,
    Duration authRefusalHold,
    int maxHeldAuthRefusals,
    int maxUserRefusalsBeforeClose,
    Duration sessionTtl,
    Duration sessionMaxAge,
    int sessionMaxPerUser,
    Duration drainGrace,
    Duration drainSpread,
    PushConfig push) {

  public static final String WS_PATH = "/v1/stream";

  public GatewayConfig {
    if (authSecret == null) {
      if (!jwks.enabled()) {
        throw new ConfigException("auth.secret is not set and neither is auth.jwks.url: a node needs at least one way "
            + "to verify player tokens (PLAYLINE_AUTH_SECRET for HS256, PLAYLINE_AUTH_JWKS_URL for RS256/ES256)");
      }
    } else {
      try {
        Hs256.checkSecret(AuthSettings.SECRET.key(), authSecret);
      } catch (IllegalArgumentException e) {
        throw new ConfigException(e.getMessage() + "; set PLAYLINE_AUTH_SECRET");
      }
    }
    if (push.registryTtl().compareTo(idleTimeout.multipliedBy(2)) < 0) {
      // The registry entry is refreshed on heartbeats at most every ttl/3, and a connected client
      // sends one at least every idle timeout: the entry must outlive both.
      throw new ConfigException("push.registry.ttl: " + push.registryTtl() + " (expected: at least twice idle.timeout "
          + idleTimeout + ")");
    }
    if (idleTimeout.compareTo(heartbeatInterval) <= 0) {
      throw new ConfigException("idle.timeout: " + idleTimeout + " (expected: longer than heartbeat.interval "
          + heartbeatInterval + ", ideally 3x)");
    }
  }

  /**
   * Reads and validates every gateway key; {@code authSecret} is the already-resolved secret, null
   * when player tokens are verified only against {@code auth.jwks.url} (HS256 tokens refused).
   */
  public static GatewayConfig from(ConfigSource c, @org.jspecify.annotations.Nullable String authSecret) {
    Duration heartbeat = LimitSettings.HEARTBEAT_INTERVAL.read(c);
    return new GatewayConfig(
        GatewaySettings.WS_PORT.read(c),
        GatewaySettings.GRPC_PORT.read(c),
        authSecret,
        JwksConfig.from(c),
        AuthSettings.TIMEOUT.read(c),
        EdgeSettings.HANDSHAKE_TIMEOUT.read(c),
        AuthSettings.EXPIRY_GRACE.read(c),
        heartbeat,
        LimitSettings.IDLE_TIMEOUT.read(c, heartbeat.multipliedBy(3)),
        EdgeSettings.FRAME_MAX_BYTES.read(c),
        LimitSettings.MAX_FRAMES_PER_SECOND.read(c),
        LimitSettings.MAX_PINGS_PER_SECOND.read(c),
        LimitSettings.MAX_UNSENT_BYTES.read(c),
        LimitSettings.MAX_CONNECTIONS.read(c),
        LimitSettings.MAX_CONNECTIONS_PER_ADDRESS.read(c),
        AddressLimitsConfig.from(c),
        NodeSettings.PROXY_PROTOCOL.read(c),
        TrustedProxies.parse(NodeSettings.PROXY_TRUSTED_CIDRS.read(c)),
        LimitSettings.MAX_CONNECTIONS_PER_USER.read(c),
        LimitSettings.USER_MAX_EVENTS_PER_SECOND.read(c),
        LimitSettings.USER_MAX_DELETES_PER_MINUTE.read(c),
        LimitSettings.USER_MAX_AUTHS_PER_MINUTE.read(c),
        LimitSettings.USER_MAX_AUTHS_BURST.read(c),
        LimitSettings.USER_AUTH_REFUSAL_HOLD.read(c),
        LimitSettings.USER_AUTH_REFUSAL_HOLD_MAX_CONNECTIONS.read(c),
        LimitSettings.USER_MAX_REFUSALS_BEFORE_CLOSE.read(c),
        AuthSettings.SESSION_TTL.read(c),
        AuthSettings.SESSION_MAX_AGE.read(c),
        AuthSettings.SESSION_MAX_PER_USER.read(c),
        GatewaySettings.DRAIN_GRACE.read(c),
        GatewaySettings.DRAIN_RECONNECT_SPREAD.read(c),
        PushConfig.from(c));
  }
}
