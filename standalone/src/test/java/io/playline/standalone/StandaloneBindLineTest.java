package io.playline.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import io.playline.core.config.ConfigSource;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** The standalone banner's line on who can connect (issue 28: standalone binds loopback and says so). */
class StandaloneBindLineTest {
  private static ConfigSource given(Map<String, String> values) {
    return ConfigSource.load(null, Map.of(), new Properties(), values);
  }

  @Test
  void withNothingSetEveryPortIsLoopbackAndTheBannerSaysHowToChangeIt() {
    assertThat(StandaloneBanner.bindLine(given(Map.of())))
        .startsWith("  Listening on 127.0.0.1 only: other machines cannot connect")
        .contains("PLAYLINE_BIND_HOST=0.0.0.0");
  }

  @Test
  void anAdminOrApiPortGivenAHostBeyondLoopbackIsNamedNotHidden() {
    String line = StandaloneBanner.bindLine(given(Map.of("admin.bind.host", "0.0.0.0",
        "api.bind.host", "127.0.0.1")));
    assertThat(line).startsWith("  Player ports on 127.0.0.1 only").endsWith("as configured: admin.bind.host=0.0.0.0.")
        .doesNotContain("api.bind.host").doesNotContain("other machines cannot connect");
    assertThat(StandaloneBanner.bindLine(given(Map.of("api.bind.host", "10.0.0.5"))))
        .endsWith("as configured: api.bind.host=10.0.0.5.");
    assertThat(StandaloneBanner.bindLine(given(Map.of("admin.bind.host", "localhost"))))
        .startsWith("  Listening on 127.0.0.1 only");
  }

  @Test
  void anOperatorWhoSetTheBindHostGetsNoLine() {
    assertThat(StandaloneBanner.bindLine(given(Map.of("bind.host", "0.0.0.0")))).isNull();
  }
}
