package io.playline.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class QueryConfigTest {

  @Test
  void defaultsFollowTheIssue() {
    QueryConfig c = CoreConfig.defaults().query();
    assertThat(c.maxItems()).isEqualTo(100);
    assertThat(c.batchMaxRequests()).isEqualTo(100);
    assertThat(c.batchMaxItems()).isEqualTo(1000);
    assertThat(c.listDefaultLimit()).isEqualTo(20);
    assertThat(c.listMaxLimit()).isEqualTo(100);
    assertThat(c.progressHBaseFallback()).isFalse();
    assertThat(c.hbaseMaxItems()).isEqualTo(1000);
    assertThat(c.hbaseTimeout()).isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void defaultLimitAboveTheMaximumNamesItsKey() {
    assertThatThrownBy(() -> QueryConfig.from(ConfigSource.empty().with(Map.of(
        "query.list.default.limit", "30", "query.list.max.limit", "20"))))
        .isInstanceOf(ConfigException.class).hasMessageContaining("query.list.default.limit");
  }

  @Test
  void aConfigBuiltInCodeIsHeldToTheKeysRanges() {
    assertThatThrownBy(() -> new QueryConfig(100, 100, 1000, 20, 100, false, 1000, Duration.ofSeconds(5),
        Duration.ofHours(2))).isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("item.stats.cache.ttl: PT2H (expected: 0..1h)");
    assertThatThrownBy(() -> new QueryConfig(100, 100, 1000, 20, 100, false, 1000, Duration.ofMillis(10),
        Duration.ZERO)).isInstanceOf(ConfigException.class).hasMessageStartingWith("query.hbase.timeout");
    assertThatThrownBy(() -> new QueryConfig(100, 0, 1000, 20, 100, false, 1000, Duration.ofSeconds(5),
        Duration.ZERO)).isInstanceOf(ConfigException.class).hasMessageStartingWith("query.batch.max.requests");
    assertThatThrownBy(() -> new QueryConfig(100, 100, 0, 20, 100, false, 1000, Duration.ofSeconds(5),
        Duration.ZERO)).isInstanceOf(ConfigException.class).hasMessageStartingWith("query.batch.max.items");
  }
}
