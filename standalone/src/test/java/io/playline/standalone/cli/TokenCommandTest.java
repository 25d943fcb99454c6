package io.playline.standalone.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.nimbusds.jwt.JWTClaimsSet;
import io.playline.api.ServiceTokens;
import io.playline.gateway.session.JwtAuthenticator;
import io.playline.node.auth.Hs256;
import io.playline.roles.Secrets;
import io.playline.standalone.PlaylineCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class TokenCommandTest {
  private static final String API_SECRET = "token-command-test-api-secret-0123456789";
  private static final String AUTH_SECRET = "token-command-test-auth-secret-0123456789";
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    return PlaylineCli.run(new PrintWriter(out), new PrintWriter(err), args);
  }

  @Test
  void mintsAServiceTokenForTheInternalApiWithTheApiKey() {
    assertThat(run("token", "--service", "billing", "--ttl", "10m", "--set", "api.secret=" + API_SECRET,
        "--set", "auth.secret=" + AUTH_SECRET)).as(err.toString()).isZero();

    JWTClaimsSet claims = new Hs256("api.secret", API_SECRET, Duration.ZERO, Clock.systemUTC())
        .verify(out.toString().trim());
    assertThat(claims.getSubject()).isEqualTo("billing");
    assertThat(claims.getAudience()).containsExactly(ServiceTokens.AUDIENCE);
    assertThat(claims.getExpirationTime().toInstant())
        .isBetween(Instant.now().plus(Duration.ofMinutes(9)), Instant.now().plus(Duration.ofMinutes(11)));
    assertThat(err.toString()).isEmpty();
  }

  @Test
  void mintsAPlayerTokenWithThePlayerKeyAndTakesOneSubjectOnly() {
    assertThat(run("token", "--uid", "42", "--set", "auth.secret=" + AUTH_SECRET)).as(err.toString()).isZero();
    assertThat(new JwtAuthenticator(AUTH_SECRET, Duration.ZERO, Clock.systemUTC()).verify(out.toString().trim()).uid())
        .isEqualTo(42);

    assertThat(run("token", "--uid", "42", "--service", "billing")).isEqualTo(2);
    assertThat(err.toString()).contains("mutually exclusive");
  }

  @Test
  void withoutTheApiKeySaysItSignsWithTheDevelopmentKey() {
    assumeTrue(System.getenv("PLAYLINE_API_SECRET") == null, "PLAYLINE_API_SECRET is set in this environment");
    assertThat(run("token", "--service", "billing")).isZero();
    assertThat(err.toString()).contains("PLAYLINE_API_SECRET is not set");
    new Hs256("api.secret", Secrets.DEV_API_SECRET, Duration.ZERO, Clock.systemUTC()).verify(out.toString().trim());
  }

  @Test
  void aMisspelledKeyRefusesTheCommandWithTheClosestKey() {
    assertThat(run("token", "--uid", "42", "--set", "auth.secrte=" + AUTH_SECRET)).isEqualTo(2);
    assertThat(err.toString()).contains("unknown config key 'auth.secrte' (command line); did you mean 'auth.secret'?");
    assertThat(out.toString()).isEmpty();
  }
}
