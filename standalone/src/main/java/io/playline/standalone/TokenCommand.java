package io.playline.standalone;

import io.playline.core.config.ConfigSource;
import io.playline.gateway.session.JwtTokens;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code playline token --uid N [--ttl 1h]}: prints a player token signed with the configured secret. */
@Command(name = "token", mixinStandardHelpOptions = true,
    description = "Print an HS256 JWT (sub = uid, exp = now + ttl) for the configured secret (PLAYLINE_AUTH_SECRET; "
        + "without it, the standalone development secret).")
final class TokenCommand implements Callable<Integer> {
  @Option(names = "--uid", required = true, description = "User id (> 0).")
  long uid;

  @Option(names = "--ttl", defaultValue = "1h", description = "Lifetime, e.g. 30m, 1h, 7d (default: ${DEFAULT-VALUE}).")
  String ttl = "1h";

  @Mixin ConfigOptions configOptions = new ConfigOptions();

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    if (uid <= 0) {
      throw new IllegalArgumentException("--uid: " + uid + " (expected: > 0)");
    }
    Duration lifetime = ConfigSource.parseDuration(ttl)
        .filter(d -> !d.isZero())
        .orElseThrow(() -> new IllegalArgumentException("--ttl: '" + ttl + "' (expected: e.g. 30m, 1h, 7d)"));
    Secrets.Resolved secret = Secrets.resolve(configOptions.load(Map.of()), true);
    if (secret.dev()) {
      spec.commandLine().getErr().println(
          "playline: PLAYLINE_AUTH_SECRET is not set; signing with the standalone development secret");
    }
    spec.commandLine().getOut().println(JwtTokens.mint(secret.secret(), uid, lifetime, Instant.now()));
    return 0;
  }
}
