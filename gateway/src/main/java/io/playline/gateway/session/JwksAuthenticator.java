package io.playline.gateway.session;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.source.JWKSetBasedJWKSource;
import com.nimbusds.jose.jwk.source.JWKSetCacheRefreshEvaluator;
import com.nimbusds.jose.jwk.source.JWKSetSource;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.jwk.source.JWKSourceBuilder;
import com.nimbusds.jose.jwk.source.RateLimitReachedException;
import com.nimbusds.jose.proc.BadJOSEException;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jose.util.DefaultResourceRetriever;
import com.nimbusds.jose.util.Resource;
import com.nimbusds.jose.util.ResourceRetriever;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.proc.DefaultJWTClaimsVerifier;
import com.nimbusds.jwt.proc.DefaultJWTProcessor;
import io.playline.gateway.config.JwksConfig;
import io.playline.node.auth.AuthenticationException;
import io.playline.time.Time;
import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.ParseException;
import java.util.Date;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Verifies RS256 / ES256 player tokens against an identity provider's key set (JWKS), with the
 * JWT library's own JWKS support: the set is fetched on first use and cached ({@code
 * auth.jwks.cache.ttl}); a token whose {@code kid} the cached set lacks makes it be fetched again at
 * once (a key rotation), at most once per {@code auth.jwks.refetch.min.interval}, so a flood of
 * made-up key ids costs the provider nothing. {@code sub} must be a decimal uid and {@code exp} is
 * required; {@code iss} and {@code aud} are checked when configured; {@code auth.clock.skew} applies.
 * The cache's expiry, the refetch interval and {@code exp} are read on the node's {@link Time}, as
 * the HS256 check reads it, so a test moves them by hand.
 *
 * <p>Fetching blocks, so verification runs on two threads of its own, never on an event loop; a
 * provider that cannot be reached fails the check as unavailable (UNAVAILABLE to the client, not
 * UNAUTHENTICATED). Thread-safe.
 */
public final class JwksAuthenticator implements Authenticator, AutoCloseable {
  private static final int MAX_QUEUED = 10_000;

  private final DefaultJWTProcessor<SecurityContext> processor = new DefaultJWTProcessor<>();
  private final ThreadPoolExecutor executor;
  private final AtomicLong fetches = new AtomicLong();
  private final JWKSetSource<SecurityContext> sets;

  /** Reads and checks times on {@code time} (the node's). */
  public JwksAuthenticator(JwksConfig settings, java.time.Duration clockSkew, Time time) {
    URL url = java.util.Objects.requireNonNull(settings.url(), "auth.jwks.url");
    ResourceRetriever http = new DefaultResourceRetriever(5_000, 5_000, 1 << 20);
    ResourceRetriever counting = u -> {
      fetches.incrementAndGet();
      return "file".equals(u.getProtocol()) ? readFile(u) : http.retrieveResource(u);
    };
    // With no failover the builder's source is a JWKSetBasedJWKSource, which reads the machine's
    // clock; its chain of sets (cache, rate limit, fetch) is asked here with the node's time instead.
    sets = ((JWKSetBasedJWKSource<SecurityContext>) JWKSourceBuilder.<SecurityContext>create(url, counting)
        .cache(settings.cacheTtl().toMillis(), 5_000)
        .rateLimited(settings.refetchMinInterval().toMillis())
        .build()).getJWKSetSource();
    JWKSource<SecurityContext> keys = (selector, context) -> {
      long now = time.millis();
      JWKSet cached = sets.getJWKSet(JWKSetCacheRefreshEvaluator.noRefresh(), now, context);
      List<JWK> found = selector.select(cached);
      if (found.isEmpty()) {
        // An unknown kid: the set is fetched again unless another thread already has, or the
        // refetch interval has not passed (RateLimitReachedException).
        found = selector.select(sets.getJWKSet(JWKSetCacheRefreshEvaluator.referenceComparison(cached), now, context));
      }
      return found;
    };
    processor.setJWSKeySelector(new JWSVerificationKeySelector<>(Set.of(JWSAlgorithm.RS256, JWSAlgorithm.ES256), keys));
    DefaultJWTClaimsVerifier<SecurityContext> claims = new DefaultJWTClaimsVerifier<>(settings.audience(),
        settings.issuer() == null ? null : new JWTClaimsSet.Builder().issuer(settings.issuer()).build(),
        new HashSet<>(Set.of("sub", "exp"))) {
      @Override
      protected Date currentTime() {
        return new Date(time.millis());
      }
    };
    claims.setMaxClockSkew((int) Math.min(Integer.MAX_VALUE, clockSkew.toSeconds()));
    processor.setJWTClaimsSetVerifier(claims);
    AtomicInteger threads = new AtomicInteger();
    executor = new ThreadPoolExecutor(2, 2, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(MAX_QUEUED), r -> {
      Thread t = new Thread(r, "playline-jwks-" + threads.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
  }

  @Override
  public CompletionStage<Principal> authenticate(String token) {
    try {
      return CompletableFuture.supplyAsync(() -> verify(token), executor);
    } catch (RejectedExecutionException e) {
      return CompletableFuture.failedFuture(new IllegalStateException("too many token checks waiting"));
    }
  }

  /**
   * Verifies on the calling thread (which may block on a fetch); throws {@link
   * AuthenticationException} with a client-safe reason for a refused token, {@link
   * IllegalStateException} when the key set cannot be had.
   */
  public Principal verify(String token) {
    JWTClaimsSet claims;
    try {
      claims = processor.process(token, null);
    } catch (ParseException e) {
      throw new AuthenticationException("malformed token");
    } catch (BadJOSEException e) {
      throw new AuthenticationException("token refused: " + e.getMessage());
    } catch (RateLimitReachedException e) {
      // An unknown kid asked for a fetch within auth.jwks.refetch.min.interval of the last one.
      throw new AuthenticationException("token refused: no key with its kid in the identity provider's key set");
    } catch (JOSEException e) {
      throw new IllegalStateException("identity provider keys unavailable: " + e.getMessage(), e);
    }
    long uid;
    try {
      uid = Long.parseLong(claims.getSubject());
    } catch (NumberFormatException e) {
      uid = -1;
    }
    if (uid <= 0) {
      throw new AuthenticationException("token sub is not a positive decimal uid");
    }
    Date exp = claims.getExpirationTime();
    return new Principal(uid, Math.max(1, exp.getTime()));
  }

  /** Key set fetches so far (the first one, expiries of the cache, unknown key ids). */
  public long fetches() {
    return fetches.get();
  }

  @Override
  public void close() {
    executor.shutdownNow();
    try {
      sets.close(); // shuts down the cache's refresh-ahead executor (threads that are not daemons)
    } catch (IOException e) {
      // From the fetching end of the chain, which holds no connection between fetches: nothing to undo.
    }
  }

  private static Resource readFile(URL url) throws IOException {
    try {
      return new Resource(Files.readString(Path.of(url.toURI())), "application/json");
    } catch (URISyntaxException e) {
      throw new IOException(e);
    }
  }
}
