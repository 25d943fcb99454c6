package io.playline.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ClusterTopologyConfigTest {

  @Test
  void defaultsRefreshEvery30sAndAdaptivelyAtMostEvery2s() {
    assertThat(ClusterTopologyConfig.defaults())
        .isEqualTo(new ClusterTopologyConfig(Duration.ofSeconds(30), Duration.ofSeconds(2)));
  }

  @Test
  void keysAreReadAndOutOfRangeValuesNameKeyValueAndRange() {
    ConfigSource source = ConfigSource.empty().with(Map.of(
        "redis.cluster.refresh.period", "5s", "redis.cluster.refresh.adaptive.timeout", "500ms"));
    assertThat(ClusterTopologyConfig.from(source))
        .isEqualTo(new ClusterTopologyConfig(Duration.ofSeconds(5), Duration.ofMillis(500)));
    assertThatThrownBy(() -> ClusterTopologyConfig.from(ConfigSource.empty().with(Map.of("redis.cluster.refresh.period", "0s"))))
        .isInstanceOf(ConfigException.class).hasMessageContaining("redis.cluster.refresh.period: '0s'")
        .hasMessageContaining("1s..3600s");
    assertThatThrownBy(() -> new ClusterTopologyConfig(Duration.ofSeconds(30), Duration.ofMillis(10)))
        .isInstanceOf(ConfigException.class).hasMessageContaining("redis.cluster.refresh.adaptive.timeout")
        .hasMessageContaining("PT0.01S");
  }
}
