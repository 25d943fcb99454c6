package io.playline.gateway.push;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.playline.core.config.ConfigException;
import io.playline.core.config.ConfigSource;
import io.playline.gateway.config.GatewayConfig;
import io.playline.node.push.PushConfig;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PushConfigTest {
  private static GatewayConfig config(Map<String, String> values) {
    ConfigSource source = ConfigSource.empty().with(values);
    return GatewayConfig.from(source, PushNode.SECRET);
  }

  @Test
  void defaultsToOneSecondWindowAndTenMinuteRegistryTtl() {
    PushConfig push = config(Map.of()).push();
    assertThat(push.coalesceWindow()).isEqualTo(Duration.ofSeconds(1));
    assertThat(push.registryTtl()).isEqualTo(Duration.ofMinutes(10));
    assertThat(push.refreshInterval()).isEqualTo(Duration.ofSeconds(200));
  }

  @Test
  void registryTtlMustOutliveTwoIdleTimeouts() {
    assertThatThrownBy(() -> config(Map.of("push.registry.ttl", "60s")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("push.registry.ttl");
    assertThat(config(Map.of("push.registry.ttl", "90s")).push().registryTtl()).isEqualTo(Duration.ofSeconds(90));
  }

  @Test
  void rejectsAWindowOutOfRange() {
    assertThatThrownBy(() -> config(Map.of("sync.coalesce.window", "2m"))).isInstanceOf(ConfigException.class);
    assertThat(config(Map.of("sync.coalesce.window", "0s")).push().coalesceWindow()).isZero();
  }
}
