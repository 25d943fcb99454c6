package io.playline.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import io.playline.core.config.Setting;
import io.playline.core.config.SettingsCatalogue;
import io.playline.roles.RoleSettings;
import io.playline.roles.cli.ConfigOptions;
import io.playline.roles.cli.RolesCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The production roles' own entry point ({@code bin/playline gateway|api|job} in the distribution):
 * it knows every key a role reads, and only those (standalone's own keys are refused there).
 */
class RolesCliTest {
  @AfterEach
  void restore() {
    ConfigOptions.checkKeysAgainst(ConfigurationDocs.catalogues());
  }

  private static Set<String> keys(java.util.List<SettingsCatalogue> catalogues) {
    return catalogues.stream().flatMap(c -> c.settings().stream()).map(Setting::documentedKey).collect(Collectors.toSet());
  }

  @Test
  void everyKeyARoleReadsIsDocumentedAndStandalonesOwnAreNotARoles() {
    Set<String> roles = keys(RoleSettings.catalogues());
    Set<String> documented = keys(ConfigurationDocs.catalogues());
    assertThat(documented).containsAll(roles);
    assertThat(roles).contains("redis.uri", "kafka.bootstrap.servers", "data.dir", "log.dir", "ws.port", "api.port");
    assertThat(roles).doesNotContain(StandaloneSettings.EMBEDDED_REDIS_PORT.documentedKey(),
        StandaloneSettings.SHUTDOWN_TIMEOUT.documentedKey());
  }

  @Test
  void aRoleRefusesAStandaloneOnlyKeyAndATypoWithUsageExit() {
    ConfigOptions.checkKeysAgainst(RoleSettings.catalogues());
    for (String key : new String[] {"embedded.redis.port=6390", "ws.prot=1"}) {
      StringWriter err = new StringWriter();
      int code = RolesCli.commandLine(new RolesCli(), new PrintWriter(new StringWriter()), new PrintWriter(err, true))
          .execute("gateway", "--set", key);
      assertThat(code).as(key).isEqualTo(RolesCli.EXIT_USAGE);
      assertThat(err.toString()).contains("unknown config key '" + key.substring(0, key.indexOf('=')) + "'");
    }
  }
}
