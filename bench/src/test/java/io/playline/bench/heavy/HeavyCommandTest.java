package io.playline.bench.heavy;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class HeavyCommandTest {
  @Test
  void majorCompactionIsOnByDefaultAndTurnsOffWithItsNoForm() {
    HeavyCommand heavy = new HeavyCommand();
    new CommandLine(heavy).parseArgs("--no-major-compact");
    assertThat(heavy.compaction.majorCompact()).isFalse();
    heavy = new HeavyCommand();
    new CommandLine(heavy).parseArgs();
    assertThat(heavy.compaction.majorCompact()).isTrue();
  }
}
