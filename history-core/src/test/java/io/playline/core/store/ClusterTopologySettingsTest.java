package io.playline.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.playline.core.config.ConfigException;
import io.playline.core.config.ConfigSource;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ClusterTopologySettingsTest {

  @Test
  void defaultsRefreshEvery30sAndAdaptivelyAtMostEvery2s() {
    assertThat(ClusterTopologySettings.defaults())
        .isEqualTo(new ClusterTopologySettings(Duration.ofSeconds(30), Duration.ofSeconds(2)));
  }

  @Test
  void keysAreReadAndOutOfRangeValuesNameKeyValueAndRange() {
    ConfigSource source = ConfigSource.empty().with(Map.of(
        "redis.cluster.refresh.period", "5s", "redis.cluster.refresh.adaptive.timeout", "500ms"));
    assertThat(ClusterTopologySettings.from(source))
        .isEqualTo(new ClusterTopologySettings(Duration.ofSeconds(5), Duration.ofMillis(500)));
    assertThatThrownBy(() -> ClusterTopologySettings.from(ConfigSource.empty().with(Map.of("redis.cluster.refresh.period", "0s"))))
        .isInstanceOf(ConfigException.class).hasMessageContaining("redis.cluster.refresh.period: '0s'")
        .hasMessageContaining("1s..3600s");
    assertThatThrownBy(() -> new ClusterTopologySettings(Duration.ofSeconds(30), Duration.ofMillis(10)))
        .isInstanceOf(ConfigException.class).hasMessageContaining("redis.cluster.refresh.adaptive.timeout")
        .hasMessageContaining("PT0.01S");
  }
}
