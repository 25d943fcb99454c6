package io.playline.standalone.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.playline.standalone.PlaylineCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** bin/playline --help names every command, topology and bench included, and cuts no description short. */
class HelpTextTest {
  @Test
  void everyCommandIsListedWithAWholeFirstSentence() {
    StringWriter out = new StringWriter();
    assertThat(PlaylineCli.run(new PrintWriter(out), new PrintWriter(new StringWriter()), "--help")).isZero();
    String help = out.toString();
    CommandLine cli = new CommandLine(new PlaylineCli());
    for (var sub : cli.getSubcommands().entrySet()) {
      assertThat(help).as("--help lists %s", sub.getKey()).contains("  " + sub.getKey() + " ");
      String[] description = sub.getValue().getCommandSpec().usageMessage().description();
      if (description.length > 0) {
        // The command list shows only the first line: it must end a sentence, not break one off.
        assertThat(description[0].strip()).as("the first line of %s's description", sub.getKey()).endsWith(".");
      }
    }
    assertThat(help.replaceAll("\\s+", " ")).contains("bin/playline topology", "bin/playline bench");
  }
}
