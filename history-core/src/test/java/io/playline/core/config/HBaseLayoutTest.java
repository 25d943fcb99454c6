package io.playline.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.playline.proto.v1.Business;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HBaseLayoutTest {

  @Test
  void defaultsFollowTheSpec() {
    HBaseLayout layout = HBaseLayout.defaults();
    assertThat(layout.table().getNameAsString()).isEqualTo("playline:history");
    assertThat(layout.family()).isEqualTo("h");
    assertThat(layout.retention()).isEqualTo(Duration.ofDays(90));
    assertThat(layout.retentionOverrides()).isEmpty();
  }

  @Test
  void perBusinessRetentionOverridesAndTheLongestIsTheFamilyTtl() {
    HBaseLayout layout = HBaseLayout.from(ConfigSource.empty().with(Map.of(
        "history.retention.live", "7d", "history.retention.article", "400d")));
    assertThat(layout.retention(Business.LIVE)).isEqualTo(Duration.ofDays(7));
    assertThat(layout.retention(Business.VIDEO)).isEqualTo(Duration.ofDays(90));
    assertThat(layout.maxRetention()).isEqualTo(Duration.ofDays(400));
    assertThat(layout.oldestKeptMs(Business.LIVE, 10 * 86_400_000L)).isEqualTo(3 * 86_400_000L);
  }

  @Test
  void misspelledBusinessAndBadTableStopStartUp() {
    assertThatThrownBy(() -> HBaseLayout.from(ConfigSource.empty().with(Map.of("history.retention.vidoe", "7d"))))
        .isInstanceOf(ConfigException.class).hasMessageContaining("history.retention.vidoe");
    assertThatThrownBy(() -> HBaseLayout.from(ConfigSource.empty().with(Map.of("hbase.table", "bad name!"))))
        .isInstanceOf(ConfigException.class).hasMessageContaining("hbase.table");
  }
}
