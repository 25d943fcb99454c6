package io.playline.bench.common;

import static org.assertj.core.api.Assertions.assertThat;

import io.playline.core.config.ConfigSource;
import java.time.ZoneId;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

class OptionMixinsTest {
  @Command
  static final class Options {
    @Mixin SecretOption secret = new SecretOption();
    @Mixin ZoneOption zone = new ZoneOption();
    @Mixin EventsOption events = new EventsOption();
    @Mixin UidBaseOption uidBase = new UidBaseOption();
    @Mixin PageOption pages = new PageOption();
    @Mixin MajorCompactOption compaction = new MajorCompactOption();
  }

  @Test
  void unsetTheyTakeTheirDefaults() {
    Options o = new Options();
    new CommandLine(o).parseArgs();
    assertThat(o.secret.secret(ConfigSource.empty().with(Map.of()), "dev")).isEqualTo("dev");
    assertThat(o.zone.zone()).isEqualTo(ZoneId.of("UTC"));
    assertThat(o.events.events()).isEqualTo(1);
    assertThat(o.uidBase.uidBase(() -> 42)).isEqualTo(42);
    assertThat(o.pages.page()).isEqualTo(20);
    assertThat(o.compaction.majorCompact()).isTrue();
  }

  @Test
  void givenTheyTakeTheValueGiven() {
    Options o = new Options();
    new CommandLine(o).parseArgs("--secret", "s", "--zone", "Asia/Shanghai", "--events", "0", "--uid-base", "7",
        "--page", "50", "--no-major-compact");
    assertThat(o.secret.secret(ConfigSource.empty().with(Map.of("auth.secret", "configured")), "dev")).isEqualTo("s");
    assertThat(o.zone.zone()).isEqualTo(ZoneId.of("Asia/Shanghai"));
    assertThat(o.events.events()).isZero();
    assertThat(o.uidBase.uidBase(() -> 42)).isEqualTo(7);
    assertThat(o.pages.page()).isEqualTo(50);
    assertThat(o.compaction.majorCompact()).isFalse();
  }
}
