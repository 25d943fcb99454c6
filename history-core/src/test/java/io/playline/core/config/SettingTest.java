package io.playline.core.config;

import static io.playline.core.config.Setting.derived;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SettingTest {
  private static final Setting<Duration> FLUSH = Setting.duration("a.flush", Duration.ofSeconds(60),
      Duration.ofSeconds(1), Duration.ofHours(1), "how often");
  private static final Setting<Duration> AGE = Setting.duration("a.age", derived("3 × `a.flush`"),
      Duration.ofSeconds(1), Duration.ofDays(1), "how old").rangeNote("≥ `a.flush`");

  @Test
  void readsThroughTheSourceWithItsDefaultAndRange() {
    ConfigSource c = ConfigSource.empty().with(Map.of("a.flush", "2m", "b.flush", "2h"));

    assertThat(FLUSH.read(ConfigSource.empty())).isEqualTo(Duration.ofSeconds(60));
    assertThat(FLUSH.read(c)).isEqualTo(Duration.ofMinutes(2));
    Setting<Duration> b = Setting.duration("b.flush", Duration.ofSeconds(60), Duration.ofSeconds(1),
        Duration.ofHours(1), "too long");
    assertThatThrownBy(() -> b.read(c))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("b.flush: '2h'")
        .hasMessageContaining("1s..3600s")
        .hasMessageContaining("PLAYLINE_B_FLUSH");
  }

  @Test
  void aDerivedDefaultIsPassedByTheCaller() {
    assertThat(AGE.read(ConfigSource.empty(), Duration.ofMinutes(3))).isEqualTo(Duration.ofMinutes(3));
    assertThat(AGE.read(ConfigSource.empty().with(Map.of("a.age", "5m")), Duration.ofMinutes(3)))
        .isEqualTo(Duration.ofMinutes(5));
    assertThat(AGE.isDerived()).isTrue();
    assertThatThrownBy(() -> AGE.read(ConfigSource.empty())).isInstanceOf(IllegalStateException.class);
    // A default of its own cannot be overridden by a caller.
    assertThatThrownBy(() -> FLUSH.read(ConfigSource.empty(), Duration.ZERO)).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void readIfSetIsEmptyUnlessSetAndValidatesWhenSet() {
    Setting<Integer> rf = Setting.intValue("rf", derived("the brokers'"), 1, 10, "replicas");

    assertThat(rf.readIfSet(ConfigSource.empty())).isEmpty();
    assertThat(rf.readIfSet(ConfigSource.empty().with(Map.of("rf", "3")))).contains(3);
    assertThatThrownBy(() -> rf.readIfSet(ConfigSource.empty().with(Map.of("rf", "0"))))
        .hasMessageContaining("rf: '0' (expected: an integer in 1..10");
  }

  @Test
  void aTemplateNamesOneKey() {
    Setting<Duration> retention = Setting.duration("h.retention.<business>", derived("`h.retention`"),
        Duration.ofHours(1), Duration.ofDays(10), "per business");
    Setting<Duration> live = retention.named("live");

    assertThat(live.key()).isEqualTo("h.retention.live");
    assertThat(live.readIfSet(ConfigSource.empty().with(Map.of("h.retention.live", "2d"))))
        .contains(Duration.ofDays(2));
    assertThat(retention.env()).isEqualTo("PLAYLINE_H_RETENTION_<BUSINESS>");
  }

  @Test
  void optionalsSecretsAndPrefixes() {
    Setting<java.util.Optional<String>> secret = Setting.secret("s.key", "unset", "a key");
    Setting<Map<String, String>> pass = Setting.prefix("k.common.", "pass-through");
    ConfigSource c = ConfigSource.empty().with(Map.of("s.key", "x", "k.common.security.protocol", "SSL"));

    assertThat(secret.read(ConfigSource.empty())).isEmpty();
    assertThat(secret.read(c)).contains("x");
    assertThat(pass.read(c)).containsExactly(Map.entry("security.protocol", "SSL"));
    assertThat(pass.documentedKey()).isEqualTo("k.common.<prop>");
    assertThat(pass.env()).isEqualTo("PLAYLINE_K_COMMON_<PROP>");
  }

  @Test
  void documentsDefaultsAndRangesTheWayValuesAreWritten() {
    assertThat(FLUSH.documentedDefault()).isEqualTo("1m");
    assertThat(FLUSH.documentedRange()).isEqualTo("1s–1h");
    assertThat(AGE.documentedDefault()).isEqualTo("3 × `a.flush`");
    assertThat(AGE.documentedRange()).isEqualTo("1s–1d, ≥ `a.flush`");
    assertThat(Setting.bytes("b", 512 * 1024, 1024, 8 << 20, "d").documentedDefault()).isEqualTo("524288 (512 KiB)");
    assertThat(Setting.bytes("b", 512 * 1024, 1024, 8 << 20, "d").documentedRange()).isEqualTo("1 KiB–8 MiB");
    assertThat(Setting.port("p", 8080, true, "d").documentedRange()).isEqualTo("0–65535 (0 = any free port)");
    assertThat(Setting.longValue("u", 7, 0, Long.MAX_VALUE, "d").documentedRange()).isEqualTo("0–2⁶³−1");
    assertThat(Setting.duration("z", Duration.ZERO, Duration.ZERO, Duration.ofMillis(1500), "d").documentedRange())
        .isEqualTo("0–1500ms");
    assertThat(Setting.string("s", "pl:", "d").documentedDefault()).isEqualTo("`pl:`");
    assertThat(Setting.optional("o", "unset (plain text)", "d").documentedDefault()).isEqualTo("unset (plain text)");
  }

  @Test
  void checkHoldsAValueBuiltInCodeToTheKeysRange() {
    Setting<Duration> timeout = Setting.duration("x.timeout", Duration.ofSeconds(5), Duration.ofMillis(100),
        Duration.ofMinutes(1), "a timeout");
    assertThat(timeout.check(Duration.ofSeconds(1))).isEqualTo(Duration.ofSeconds(1));
    assertThatThrownBy(() -> timeout.check(Duration.ofMillis(10))).isInstanceOf(ConfigException.class)
        .hasMessage("x.timeout: PT0.01S (expected: 100ms..1m)");
    Setting<Integer> count = Setting.intValue("x.count", 5, 1, 10, "a count");
    assertThat(count.check(10)).isEqualTo(10);
    assertThatThrownBy(() -> count.check(11)).hasMessage("x.count: 11 (expected: 1..10)");
    assertThat(Setting.string("x.name", "n", "a name").check("anything")).isEqualTo("anything");
  }
}
