package io.playline.bench.reads;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class ReadsCommandTest {
  @Test
  void majorCompactionIsOnByDefaultAndTurnsOffWithItsNoForm() {
    ReadsCommand reads = new ReadsCommand();
    new CommandLine(reads).parseArgs("--no-major-compact");
    assertThat(reads.compaction.majorCompact()).isFalse();
    reads = new ReadsCommand();
    new CommandLine(reads).parseArgs();
    assertThat(reads.compaction.majorCompact()).isTrue();
  }
}
