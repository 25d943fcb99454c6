package io.playline.bench.reads;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class ReadsCommandsTest {
  @Test
  void majorCompactionIsOnByDefaultAndTurnsOffWithItsNoForm() {
    ReadsCommand reads = new ReadsCommand();
    new CommandLine(reads).parseArgs("--no-major-compact");
    assertThat(reads.majorCompact).isFalse();
    HeavyCommand heavy = new HeavyCommand();
    new CommandLine(heavy).parseArgs("--no-major-compact");
    assertThat(heavy.majorCompact).isFalse();
    heavy = new HeavyCommand();
    new CommandLine(heavy).parseArgs();
    assertThat(heavy.majorCompact).isTrue();
  }
}
