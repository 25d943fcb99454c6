package io.playline.api;

import io.grpc.Grpc;
import io.playline.api.config.ApiConfig;
import java.security.cert.X509Certificate;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import org.jspecify.annotations.Nullable;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.text.ParseException;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.grpc.health.v1.HealthGrpc;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.playline.node.auth.AuthenticationException;
import io.playline.node.auth.Hs256;
import io.playline.node.grpc.Http2ConnectionGuard;
import io.netty.channel.Channel;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lets a call through only with a valid service token in {@code authorization: Bearer <JWT>}
 * ({@link ServiceTokens}): signed with {@code api.secret}, {@code aud} naming {@value
 * ServiceTokens#AUDIENCE}, a service name in {@code sub}, not expired. Anything else is closed with
 * {@code UNAUTHENTICATED} and a reason, before the service sees it. Health ({@code
 * grpc.health.v1.Health}) stays open, so load balancers and orchestrators need no credential;
 * reflection is not (it hands out the schema). The caller's service name is in {@link #SERVICE}
 * for the call. Verification is a local HMAC on the calling thread; a backend sends the same token
 * on every call, so a token that passed is kept (by its exact text, at most {@value
 * #MAX_VERIFIED_TOKENS}) with its service and validity window, and its next calls only check the
 * clock against that window (~11 % of the API's CPU per {@code GetProgress} before). With mTLS ({@code
 * api.tls.client.ca}) a verified client certificate is a credential too: its CN is the service
 * ({@code cert:<CN>}). Thread-safe.
 */
public final class ServiceAuthInterceptor implements ServerInterceptor {
  private static final Logger log = LoggerFactory.getLogger(ServiceAuthInterceptor.class);
  static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
  private static final String BEARER = "bearer ";
  /** The authenticated calling service, for the duration of its call. */
  public static final Context.Key<String> SERVICE = Context.key("playline-service");

  /** Verified tokens kept at most; past it the whole cache is dropped (distinct tokens are few: one per backend). */
  static final int MAX_VERIFIED_TOKENS = 4096;

  /** A token that passed every check: its service and the window it is valid in (clock skew included). */
  private record Verified(String service, long validFromMs, long validUntilMs) {}

  private final Hs256 jwt;
  private final MeterRegistry registry;
  private final boolean certificates;
  private final Clock clock;
  private final long skewMs;
  private final Counter verifications;
  private final ConcurrentHashMap<String, Verified> verified = new ConcurrentHashMap<>();

  /**
   * {@code certificates}: the listener requires client certificates from the configured CAs (mTLS),
   * so a call on a connection with a verified client certificate needs no token.
   */
  public ServiceAuthInterceptor(String apiSecret, Duration clockSkew, Clock clock, MeterRegistry registry,
      boolean certificates) {
    this.jwt = new Hs256(ApiConfig.SECRET_KEY, apiSecret, clockSkew, clock);
    this.registry = registry;
    this.certificates = certificates;
    this.clock = clock;
    this.skewMs = clockSkew.toMillis();
    this.verifications = Counter.builder("playline.api.auth.verifications")
        .description("Service tokens checked in full (signature, claims); the calls in between reuse the result")
        .register(registry);
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
      ServerCallHandler<Q, R> next) {
    if (HealthGrpc.SERVICE_NAME.equals(call.getMethodDescriptor().getServiceName())) {
      return next.startCall(call, headers);
    }
    String certified = certificates ? certifiedService(call) : null;
    if (certified != null) {
      proven(call);
      return Contexts.interceptCall(Context.current().withValue(SERVICE, certified), call, headers, next);
    }
    String service;
    try {
      service = authenticate(headers.get(AUTHORIZATION));
    } catch (AuthenticationException e) {
      refused(e.getMessage()).increment();
      log.debug("Refused {} without a valid service token: {}", call.getMethodDescriptor().getFullMethodName(),
          e.getMessage());
      call.close(Status.UNAUTHENTICATED.withDescription(e.getMessage()
          + " (the internal API needs 'authorization: Bearer <service token>'; see bin/playline token --service)"),
          new Metadata());
      return new ServerCall.Listener<>() {};
    }
    proven(call);
    return Contexts.interceptCall(Context.current().withValue(SERVICE, service), call, headers, next);
  }

  /** {@code call} carried a credential: its connection no longer gives way to newcomers over the port's caps. */
  private static void proven(ServerCall<?, ?> call) {
    Channel channel = call.getAttributes().get(Http2ConnectionGuard.CHANNEL);
    if (channel != null) {
      Http2ConnectionGuard.proven(channel);
    }
  }

  /**
   * The service a verified client certificate names ({@code cert:} + its subject's CN, or the whole
   * subject without one), or null when the connection has none.
   */
  static @Nullable String certifiedService(ServerCall<?, ?> call) {
    SSLSession ssl = call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION);
    if (ssl == null) {
      return null;
    }
    try {
      java.security.cert.Certificate[] peers = ssl.getPeerCertificates();
      if (peers.length == 0 || !(peers[0] instanceof X509Certificate leaf)) {
        return null;
      }
      String subject = leaf.getSubjectX500Principal().getName();
      for (Rdn rdn : new LdapName(subject).getRdns()) {
        if (rdn.getType().equalsIgnoreCase("CN")) {
          return "cert:" + rdn.getValue();
        }
      }
      return "cert:" + subject;
    } catch (SSLPeerUnverifiedException | InvalidNameException e) {
      return null;
    }
  }

  /** The service named by a valid bearer token; throws with a client-safe reason otherwise. */
  String authenticate(String authorization) {
    if (authorization == null || authorization.isBlank()) {
      throw new AuthenticationException("missing credentials");
    }
    if (!authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
      throw new AuthenticationException("authorization is not a bearer token");
    }
    String token = authorization.substring(BEARER.length()).trim();
    Verified known = verified.get(token);
    if (known != null) {
      long now = clock.millis();
      if (now >= known.validFromMs() && now <= known.validUntilMs()) {
        return known.service();
      }
      verified.remove(token, known); // expired: the full check below says so
    }
    verifications.increment();
    checkAudience(unverifiedClaims(token));
    JWTClaimsSet claims = jwt.verify(token);
    checkAudience(claims);
    String service = claims.getSubject();
    if (service == null || service.isBlank() || service.length() > ServiceTokens.MAX_SERVICE_NAME) {
      throw new AuthenticationException("service token names no service in sub");
    }
    if (verified.size() >= MAX_VERIFIED_TOKENS) {
      verified.clear();
    }
    // Hs256.verify refused a token without exp; nbf is optional.
    long from = claims.getNotBeforeTime() == null ? Long.MIN_VALUE : claims.getNotBeforeTime().getTime() - skewMs;
    verified.put(token, new Verified(service, from, claims.getExpirationTime().getTime() + skewMs));
    return service;
  }

  /** The claims {@code token} states, unchecked; null when it is not a JWT (the full check says so). */
  private static @Nullable JWTClaimsSet unverifiedClaims(String token) {
    try {
      return SignedJWT.parse(token).getJWTClaimsSet();
    } catch (ParseException e) {
      return null;
    }
  }

  /**
   * Refuses claims that do not name the API's audience, before the signature is checked: a player
   * token is signed with another key, and "bad token signature" would send its sender looking for
   * the wrong problem. A claim the caller wrote itself reveals nothing to it.
   */
  private static void checkAudience(@Nullable JWTClaimsSet claims) {
    if (claims == null) {
      return;
    }
    List<String> audience = claims.getAudience();
    if (audience != null && audience.contains(ServiceTokens.AUDIENCE)) {
      return;
    }
    String subject = claims.getSubject();
    if (subject != null && !subject.isEmpty() && subject.chars().allMatch(Character::isDigit)) {
      throw new AuthenticationException("not a service token: a player token (sub is a uid); the internal API takes "
          + "service tokens (aud " + ServiceTokens.AUDIENCE + ", signed with api.secret)");
    }
    throw new AuthenticationException("not a service token (aud must name " + ServiceTokens.AUDIENCE + ")");
  }

  /** Tokens kept verified now (tests). */
  int verifiedTokens() {
    return verified.size();
  }

  private Counter refused(String reason) {
    String tag = reason.toLowerCase(Locale.ROOT);
    if (tag.startsWith("missing")) {
      tag = "missing";
    } else if (tag.contains("expired") || tag.contains("not yet valid")) {
      tag = "expired";
    } else if (tag.startsWith("not a service token") || tag.contains("names no service")) {
      tag = "not_a_service_token";
    } else {
      tag = "invalid";
    }
    return Counter.builder("playline.api.auth.refused").tag("reason", tag)
        .description("Internal API calls refused for want of a valid service token").register(registry);
  }
}
