package io.playline.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigSourceTest {
  @Test
  void laterLayersWin(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("playline.properties");
    Files.writeString(file, "ws.port=1111\nadmin.port=2222\napi.port=3333\n");
    Properties sys = new Properties();
    sys.setProperty("playline.api.port", "4444");
    ConfigSource c = ConfigSource.load(file, Map.of("PLAYLINE_ADMIN_PORT", "5555", "PLAYLINE_API_PORT", "6666"), sys,
        Map.of("api.port", "7777"));
    assertThat(c.port("ws.port", 8080, false)).isEqualTo(1111);
    assertThat(c.port("admin.port", 9100, false)).isEqualTo(5555);
    assertThat(c.port("api.port", 9091, false)).isEqualTo(7777);
    assertThat(c.port("grpc.port", 9090, false)).isEqualTo(9090);
  }

  @Test
  void envNamesFoldDotsAndDashes() {
    ConfigSource c = ConfigSource.load(null, Map.of("PLAYLINE_HEARTBEAT_BATCH_MAX_EVENTS", "64"), new Properties(), Map.of());
    assertThat(c.intValue("heartbeat.batch.max.events", 512, 1, 1000)).isEqualTo(64);
    assertThat(ConfigSource.envName("heartbeat.batch.max-events")).isEqualTo("PLAYLINE_HEARTBEAT_BATCH_MAX_EVENTS");
  }

  @Test
  void outOfRangeValueNamesTheKeyTheRangeAndTheSource() {
    ConfigSource c = ConfigSource.load(null, Map.of("PLAYLINE_WS_PORT", "99999"), new Properties(), Map.of());
    assertThatThrownBy(() -> c.port("ws.port", 8080, false))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("ws.port")
        .hasMessageContaining("99999")
        .hasMessageContaining("1..65535")
        .hasMessageContaining("PLAYLINE_WS_PORT");
  }

  @Test
  void durationsNeedAUnitAndARange() {
    ConfigSource c = ConfigSource.empty().with(Map.of("a", "10s", "b", "10", "c", "2h"));
    assertThat(c.duration("a", Duration.ZERO, Duration.ZERO, Duration.ofMinutes(1))).isEqualTo(Duration.ofSeconds(10));
    assertThatThrownBy(() -> c.duration("b", Duration.ZERO, Duration.ZERO, Duration.ofMinutes(1)))
        .hasMessageContaining("b: '10'").hasMessageContaining("e.g. 500ms");
    assertThatThrownBy(() -> c.duration("c", Duration.ZERO, Duration.ZERO, Duration.ofMinutes(1)))
        .hasMessageContaining("0s..60s");
  }

  @Test
  void unreadableFileIsAClearError(@TempDir Path dir) {
    assertThatThrownBy(() -> ConfigSource.load(dir.resolve("missing.properties"), Map.of(), new Properties(), Map.of()))
        .isInstanceOf(ConfigException.class).hasMessageContaining("missing.properties");
  }

  @Test
  void coreConfigRejectsTombstonesShorterThanTheClampWindow() {
    assertThatThrownBy(() -> CoreConfig.from(ConfigSource.empty().with(Map.of(
        "event.clamp.past", "3d", "history.tombstone.ttl", "1d"))))
        .isInstanceOf(ConfigException.class).hasMessageContaining("history.tombstone.ttl");
    assertThat(CoreConfig.defaults().maxItemsPerUser()).isEqualTo(1000);
  }

  @Test
  void badBooleanAndZoneAreRejected() {
    ConfigSource c = ConfigSource.empty().with(Map.of("x", "maybe", "flag.zone", "Mars/Olympus"));
    assertThatThrownBy(() -> c.bool("x", false)).hasMessageContaining("true or false");
    assertThatThrownBy(() -> c.zone("flag.zone", java.time.ZoneId.of("UTC"))).hasMessageContaining("time zone");
  }

  @Test
  void withPrefixGivesEveryKeyUnderThePrefixByTheRestOfItsKey() {
    ConfigSource c = ConfigSource.load(null, Map.of("PLAYLINE_KAFKA_COMMON_SASL_MECHANISM", "PLAIN"),
        new Properties(), Map.of("kafka.common.security.protocol", "SASL_SSL", "kafka.common.empty", "",
            "kafka.commons.other", "x", "kafka.producer.linger", "5ms"));

    assertThat(c.withPrefix("kafka.common.")).containsExactly(Map.entry("sasl.mechanism", "PLAIN"),
        Map.entry("security.protocol", "SASL_SSL"));
    assertThat(c.withPrefix("KAFKA_PRODUCER.")).containsExactly(Map.entry("linger", "5ms"));
    assertThatThrownBy(() -> c.withPrefix("kafka.common")).isInstanceOf(IllegalArgumentException.class);
  }
}
