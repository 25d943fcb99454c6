package io.playline.standalone.cli;

import io.playline.api.ServiceTokens;
import io.playline.core.config.ConfigSource;
import io.playline.gateway.session.JwtTokens;
import io.playline.roles.Secrets;
import io.playline.roles.cli.ConfigOptions;
import io.playline.time.Time;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code playline token --uid N | --service NAME [--ttl 1h]}: prints a player token signed with
 * {@code auth.secret}, or a service token for the internal API signed with {@code api.secret}.
 */
@Command(name = "token", mixinStandardHelpOptions = true,
    description = "Print an HS256 JWT: a player token (sub = uid) signed with PLAYLINE_AUTH_SECRET, or a service "
        + "token for the internal API (sub = service, aud = " + ServiceTokens.AUDIENCE + ") signed with "
        + "PLAYLINE_API_SECRET; without the secret, the standalone development one. exp = now + ttl.")
public final class TokenCommand implements Callable<Integer> {
  static final class Subject {
    @Option(names = "--uid", required = true, description = "A player token for this user id (> 0).")
    @Nullable Long uid;

    @Option(names = "--service", required = true, paramLabel = "NAME",
        description = "A service token for the internal API, naming the calling service.")
    @Nullable String service;
  }

  @ArgGroup(exclusive = true, multiplicity = "1")
  Subject subject = new Subject();

  @Option(names = "--ttl", defaultValue = "1h", description = "Lifetime, e.g. 30m, 1h, 7d (default: ${DEFAULT-VALUE}).")
  String ttl = "1h";

  @Mixin ConfigOptions configOptions = new ConfigOptions();

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    Duration lifetime = ConfigSource.parseDuration(ttl)
        .filter(d -> !d.isZero())
        .orElseThrow(() -> new IllegalArgumentException("--ttl: '" + ttl + "' (expected: e.g. 30m, 1h, 7d)"));
    ConfigSource config = configOptions.load(Map.of());
    String service = subject.service;
    if (service != null) {
      String secret = secret(Secrets.resolveApi(config, true), "PLAYLINE_API_SECRET", "development API key");
      spec.commandLine().getOut().println(ServiceTokens.mint(secret, service, lifetime, Time.SYSTEM.instant()));
      return 0;
    }
    long uid = subject.uid == null ? 0 : subject.uid;
    if (uid <= 0) {
      throw new IllegalArgumentException("--uid: " + uid + " (expected: > 0)");
    }
    String secret = secret(Secrets.resolve(config, true), "PLAYLINE_AUTH_SECRET", "development secret");
    spec.commandLine().getOut().println(JwtTokens.mint(secret, uid, lifetime, Time.SYSTEM.instant()));
    return 0;
  }

  /** The resolved key; says on stderr when it is the public development one. */
  private String secret(Secrets.Resolved resolved, String env, String devName) {
    if (resolved.dev()) {
      spec.commandLine().getErr().println("playline: " + env + " is not set; signing with the standalone " + devName);
    }
    return resolved.secret();
  }
}
