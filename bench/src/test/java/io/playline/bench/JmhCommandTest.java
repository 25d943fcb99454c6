package io.playline.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.runner.options.CommandLineOptions;

/** {@code bench jmh}'s short defaults give way to any JMH option the caller sets. */
class JmhCommandTest {
  @Test
  void theDefaultsApplyWhenNothingIsGiven() throws Exception {
    assertThat(JmhCommand.withDefaults(List.of("ConnectJson")))
        .containsExactly("-f", "1", "-wi", "2", "-w", "2s", "-i", "3", "-r", "2s", "ConnectJson");
  }

  @Test
  void anOptionTheCallerGivesReplacesItsDefaultAndJmhAcceptsTheLine() throws Exception {
    List<String> line = JmhCommand.withDefaults(List.of("-wi", "3", "-i", "5", "ConnectJson"));
    assertThat(line).containsExactly("-f", "1", "-w", "2s", "-r", "2s", "-wi", "3", "-i", "5", "ConnectJson");
    CommandLineOptions parsed = new CommandLineOptions(line.toArray(new String[0]));
    assertThat(parsed.getMeasurementIterations().get()).isEqualTo(5);
    assertThat(parsed.getWarmupIterations().get()).isEqualTo(3);
  }
}
