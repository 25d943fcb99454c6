package io.playline.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpServer;
import io.playline.gateway.config.GatewayConfig;
import io.playline.proto.v1.Error.Code;
import io.playline.proto.v1.ServerFrame;
import io.playline.testing.Frames;
import io.playline.testing.ManualTime;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import io.playline.testing.WsPlayerClient;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * RS256 / ES256 player tokens from an identity provider's key set, served by a real HTTP server
 * on loopback: accepted with their kid, a rotation (new kid appears, old one removed) followed at
 * once, iss / aud checked, made-up kids not turned into fetches, HS256 still accepted, and a
 * provider that cannot be reached answered UNAVAILABLE. The shared node runs on a manual time: the
 * refetch interval passes when a test moves it, never by waiting.
 */
@ExtendWith(RealRedisExtension.class)
class JwksTest {
  static final String ISSUER = "https://id.playline.test";
  static final String AUDIENCE = "playline";
  static HttpServer provider;
  static final AtomicReference<String> published = new AtomicReference<>();
  static final AtomicInteger fetches = new AtomicInteger();
  /** The shared node's auth.jwks.refetch.min.interval. */
  static final Duration REFETCH = Duration.ofMinutes(1);
  static final ManualTime time = new ManualTime();
  static RSAKey rsa1;
  static RSAKey rsa2;
  static ECKey ec1;
  static TestGateway gateway;

  @BeforeAll
  static void start(RedisNamespace ns) throws Exception {
    rsa1 = new RSAKeyGenerator(2048).keyID("rsa-1").generate();
    rsa2 = new RSAKeyGenerator(2048).keyID("rsa-2").generate();
    ec1 = new ECKeyGenerator(Curve.P_256).keyID("ec-1").generate();
    publish(rsa1, ec1);
    provider = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    provider.createContext("/jwks.json", exchange -> {
      fetches.incrementAndGet();
      byte[] body = published.get().getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      exchange.sendResponseHeaders(200, body.length);
      exchange.getResponseBody().write(body);
      exchange.close();
    });
    provider.start();
    gateway = new TestGateway(ns, Map.of("auth.jwks.url", jwksUrl(), "auth.issuer", ISSUER, "auth.audience", AUDIENCE,
        "auth.jwks.cache.ttl", "1h", "auth.jwks.refetch.min.interval", REFETCH.toSeconds() + "s"), time);
  }

  @AfterAll
  static void stop() {
    gateway.close();
    provider.stop(0);
  }

  static String jwksUrl() {
    return "http://127.0.0.1:" + provider.getAddress().getPort() + "/jwks.json";
  }

  static void publish(JWK... keys) {
    published.set(new JWKSet(List.of(keys)).toPublicJWKSet().toString());
  }

  static String token(JWK key, long uid, String issuer, String audience) throws Exception {
    JWTClaimsSet claims = new JWTClaimsSet.Builder().subject(Long.toString(uid)).issuer(issuer).audience(audience)
        .expirationTime(Date.from(Instant.now().plus(Duration.ofMinutes(10)))).build();
    JWSAlgorithm alg = key instanceof RSAKey ? JWSAlgorithm.RS256 : JWSAlgorithm.ES256;
    SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(alg).keyID(key.getKeyID()).type(JOSEObjectType.JWT).build(),
        claims);
    jwt.sign(key instanceof RSAKey r ? new RSASSASigner(r) : new ECDSASigner((ECKey) key));
    return jwt.serialize();
  }

  static ServerFrame authWith(TestGateway node, String token) throws Exception {
    try (WsPlayerClient c = WsPlayerClient.connect(node.server.wsAddress().getPort())) {
      c.send(Frames.auth(1, token));
      return c.next();
    }
  }

  @Test
  void providerTokensAreAcceptedAndARotationIsFollowedAtOnce() throws Exception {
    String rsaToken = token(rsa1, 501, ISSUER, AUDIENCE);
    ServerFrame ok = authWith(gateway, rsaToken);
    assertThat(ok.getAuthOk().getUid()).isEqualTo(501);
    assertThat(ok.getAuthOk().getExpiresAtMs())
        .isEqualTo(SignedJWT.parse(rsaToken).getJWTClaimsSet().getExpirationTime().getTime());
    assertThat(authWith(gateway, token(ec1, 502, ISSUER, AUDIENCE)).getAuthOk().getUid()).isEqualTo(502);
    // HS256 tokens signed with auth.secret are still accepted beside them.
    assertThat(authWith(gateway, TestGateway.token(503)).getAuthOk().getUid()).isEqualTo(503);

    // The provider rotates: a new key appears, every other one is removed. A new refetch interval
    // starts, so fetches the other tests made in this one do not hold the rotation back.
    RSAKey rotated = new RSAKeyGenerator(2048).keyID("rsa-" + UUID.randomUUID()).generate();
    publish(rotated);
    time.advance(REFETCH);
    int before = fetches.get();
    assertThat(authWith(gateway, token(rotated, 504, ISSUER, AUDIENCE)).getAuthOk().getUid()).isEqualTo(504);
    assertThat(fetches.get()).isEqualTo(before + 1);
    // Once the interval has passed on the node's clock, a token with the removed kid makes the set
    // be fetched again, and it is refused.
    time.advance(REFETCH);
    ServerFrame refused = authWith(gateway, token(rsa1, 505, ISSUER, AUDIENCE));
    assertThat(refused.getError().getCode()).isEqualTo(Code.UNAUTHENTICATED);
    assertThat(refused.getError().getMessage()).startsWith("token refused");
    assertThat(fetches.get()).isEqualTo(before + 2);
  }

  /** An operator with only an identity provider needs no HS256 key, and such a node refuses HS256 tokens. */
  @Test
  void aNodeWithOnlyAKeySetNeedsNoSecretAndRefusesHs256Tokens(RedisNamespace ns) throws Exception {
    ECKey key = new ECKeyGenerator(Curve.P_256).keyID("only-" + UUID.randomUUID()).generate();
    String before = published.get();
    publish(key);
    try (TestGateway jwksOnly = new TestGateway(ns, Map.of("auth.secret", "", "auth.jwks.url", jwksUrl(),
        "auth.issuer", ISSUER, "auth.audience", AUDIENCE))) {
      assertThat(authWith(jwksOnly, token(key, 511, ISSUER, AUDIENCE)).getAuthOk().getUid()).isEqualTo(511);
      ServerFrame refused = authWith(jwksOnly, TestGateway.token(512));
      assertThat(refused.getError().getCode()).isEqualTo(Code.UNAUTHENTICATED);
      assertThat(refused.getError().getMessage()).contains("HS256 is not accepted");
    } finally {
      published.set(before);
    }
    assertThatThrownBy(() -> GatewayConfig.from(io.playline.core.config.ConfigSource.empty(), null))
        .hasMessageContaining("auth.secret is not set and neither is auth.jwks.url");
  }

  @Test
  void issuerAndAudienceAreChecked() throws Exception {
    publish(rsa1, rsa2, ec1);
    // Another test may have rotated the keys away: past the refetch interval ec-1's kid, unknown to
    // the cache then, makes it be fetched again.
    time.advance(REFETCH);
    assertThat(authWith(gateway, token(ec1, 510, ISSUER, AUDIENCE)).getAuthOk().getUid()).isEqualTo(510);
    ServerFrame otherIssuer = authWith(gateway, token(ec1, 511, "https://evil.example", AUDIENCE));
    assertThat(otherIssuer.getError().getCode()).isEqualTo(Code.UNAUTHENTICATED);
    assertThat(otherIssuer.getError().getMessage()).contains("iss");
    ServerFrame otherAudience = authWith(gateway, token(ec1, 512, ISSUER, "someone-else"));
    assertThat(otherAudience.getError().getCode()).isEqualTo(Code.UNAUTHENTICATED);
    assertThat(otherAudience.getError().getMessage()).contains("aud");
  }

  @Test
  void madeUpKeyIdsDoNotTurnIntoFetches(RedisNamespace ns) throws Exception {
    try (TestGateway patient = new TestGateway(ns, Map.of("auth.jwks.url", jwksUrl(),
        "auth.jwks.cache.ttl", "1h", "auth.jwks.refetch.min.interval", "10m"))) {
      publish(rsa1, rsa2, ec1);
      assertThat(authWith(patient, token(rsa1, 521, ISSUER, AUDIENCE)).hasAuthOk()).isTrue();
      int before = fetches.get();
      for (int i = 0; i < 20; i++) {
        RSAKey stranger = new RSAKey.Builder(rsa1).keyID("made-up-" + UUID.randomUUID()).build();
        assertThat(authWith(patient, token(stranger, 522, ISSUER, AUDIENCE)).getError().getCode())
            .isEqualTo(Code.UNAUTHENTICATED);
      }
      assertThat(fetches.get() - before).isLessThanOrEqualTo(1);
    }
  }

  @Test
  void aProviderThatCannotBeReachedIsUnavailableNotUnauthenticated(RedisNamespace ns) throws Exception {
    HttpServer gone = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    int port = gone.getAddress().getPort();
    gone.stop(0);
    try (TestGateway cutOff = new TestGateway(ns, Map.of("auth.jwks.url", "http://127.0.0.1:" + port + "/jwks.json",
        "auth.timeout", "30s"))) {
      ServerFrame error = authWith(cutOff, token(rsa1, 531, ISSUER, AUDIENCE));
      assertThat(error.getError().getCode()).isEqualTo(Code.UNAVAILABLE);
      // HS256 tokens do not depend on the provider.
      assertThat(authWith(cutOff, TestGateway.token(532)).getAuthOk().getUid()).isEqualTo(532);
    }
  }
}
