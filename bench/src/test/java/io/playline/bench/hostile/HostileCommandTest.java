package io.playline.bench.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class HostileCommandTest {
  @Test
  void switchesThatAreOnByDefaultTurnOffWithTheirNoForm() {
    HostileCommand hostile = new HostileCommand();
    new CommandLine(hostile).parseArgs();
    assertThat(hostile.together).isTrue();
    assertThat(hostile.single).isTrue();
    hostile = new HostileCommand();
    new CommandLine(hostile).parseArgs("--no-together", "--no-single");
    assertThat(hostile.together).isFalse();
    assertThat(hostile.single).isFalse();
  }
}
