package io.playline.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** Keys no setting reads refuse start-up, with the closest known key; prefixes and allowed keys pass. */
class UnknownKeysTest {
  private static final Setting<Integer> PORT = Setting.port("ws.port", 8080, true, "the port");
  private static final Setting<Duration> TIMEOUT = Setting.duration("auth.timeout", Duration.ofSeconds(5),
      Duration.ofMillis(1), Duration.ofMinutes(1), "a timeout");
  private static final Setting<Map<String, String>> KAFKA = Setting.prefix("kafka.producer.", "producer configs");
  private static final List<SettingsCatalogue> CATALOGUES = List.of(new SettingsCatalogue("Test", List.of(PORT,
      TIMEOUT, KAFKA)));

  @Test
  void aMisspelledKeyIsRefusedNamingWhereItWasSetAndTheClosestKey() {
    ConfigSource source = ConfigSource.load(null, Map.of(), new Properties(), Map.of("ws.prot", "48084"));
    assertThatThrownBy(() -> UnknownKeys.check(source, CATALOGUES)).isInstanceOf(ConfigException.class)
        .hasMessageContaining("unknown config key 'ws.prot' (command line); did you mean 'ws.port'?")
        .hasMessageContaining("config.unknown.keys.allowed");
  }

  @Test
  void anEnvironmentVariableIsCheckedToo() {
    ConfigSource source = ConfigSource.load(null, Map.of("PLAYLINE_AUTH_TIMOUT", "1s"), new Properties(), Map.of());
    assertThatThrownBy(() -> UnknownKeys.check(source, CATALOGUES))
        .hasMessageContaining("'auth.timout' (env PLAYLINE_AUTH_TIMOUT); did you mean 'auth.timeout'?");
  }

  @Test
  void knownKeysPrefixedKeysLauncherKeysAndAllowedKeysPass() {
    Properties system = new Properties();
    system.setProperty("playline.embedded.exitWithParent", "false");
    ConfigSource source = ConfigSource.load(null, Map.of("PLAYLINE_JAVA_OPTS", "-Xmx1g",
        "PLAYLINE_GATEWAY_JAVA_OPTS", "-Xmx1g"), system, Map.of("ws.port", "1",
        "kafka.producer.linger.ms", "5", "future.key", "x", "config.unknown.keys.allowed", "future.key"));
    assertThatCode(() -> UnknownKeys.check(source, CATALOGUES)).doesNotThrowAnyException();
  }

  @Test
  void variablesTheLauncherAndTheJsTestsReadThemselvesPass() {
    for (String variable : List.of("PLAYLINE_NETTY_LEAK_DETECTION", "PLAYLINE_SKIP_BROWSER", "PLAYLINE_CHROMIUM",
        "PLAYLINE_TEST_ENDPOINTS")) {
      ConfigSource source = ConfigSource.load(null, Map.of(variable, "1"), new Properties(), Map.of());
      assertThatCode(() -> UnknownKeys.check(source, CATALOGUES)).as(variable).doesNotThrowAnyException();
    }
  }

  @Test
  void aKeyFarFromAnyKnownOneGetsNoSuggestion() {
    ConfigSource source = ConfigSource.load(null, Map.of(), new Properties(), Map.of("completely.different", "x",
        "another.one", "y"));
    assertThatThrownBy(() -> UnknownKeys.check(source, CATALOGUES)).hasMessageNotContaining("did you mean")
        .hasMessageContaining("1 more unknown");
    assertThat(UnknownKeys.closest("ws.prot", List.of("ws.port", "grpc.port"))).isEqualTo("ws.port");
  }
}
