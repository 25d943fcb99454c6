package io.playline.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import io.playline.core.config.ConfigSource;
import io.playline.gateway.ws.DemoPage;
import io.playline.roles.Demo;
import io.playline.roles.Secrets;
import io.playline.time.Time;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Where the demo web player is on, and where it hands out tokens (served end to end by client-js's browser test). */
class DemoTest {
  private static final String OWN_SECRET = "an-operator-secret-of-at-least-32-bytes!";

  @Test
  void onInStandaloneWithTokensOnlyForTheDevelopmentSecret() {
    DemoPage dev = Demo.page(ConfigSource.empty(), true, Secrets.DEV_SECRET, true, Time.SYSTEM);
    assertThat(dev).isNotNull();
    assertThat(dev.handsOutTokens()).isTrue();

    DemoPage own = Demo.page(ConfigSource.empty(), true, OWN_SECRET, false, Time.SYSTEM);
    assertThat(own).isNotNull();
    assertThat(own.handsOutTokens()).as("tokens signed with an operator's secret are never handed out").isFalse();

    assertThat(Demo.page(ConfigSource.empty().with(Map.of("demo.enabled", "false")), true, Secrets.DEV_SECRET, true,
        Time.SYSTEM)).isNull();
  }

  @Test
  void offOnAGatewayUnlessEnabledAndThenWithoutTokens() {
    assertThat(Demo.page(ConfigSource.empty(), false, OWN_SECRET, false, Time.SYSTEM)).isNull();
    DemoPage page = Demo.page(ConfigSource.empty().with(Map.of("demo.enabled", "true")), false, null, false,
        Time.SYSTEM);
    assertThat(page).isNotNull();
    assertThat(page.handsOutTokens()).isFalse();
  }

  @Test
  void thePageLivesBesideThePlayerStream() {
    assertThat(Demo.url("ws://127.0.0.1:8080/v1/stream")).isEqualTo("http://127.0.0.1:8080/demo/");
    assertThat(Demo.url("wss://play.example.com:443/v1/stream")).isEqualTo("https://play.example.com:443/demo/");
  }
}
