package io.playline.standalone.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.playline.standalone.PlaylineCli;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

/**
 * {@code history clear} names its scope: some businesses or {@code --all}, never neither (which
 * once cleared everything) nor both. Refused as bad arguments before any call: the API address is
 * a port nothing listens on, so a command that got as far as calling would exit 1, not 2.
 */
class HistoryClearCommandTest {
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    return PlaylineCli.run(new PrintWriter(new StringWriter()), new PrintWriter(err), args);
  }

  private static String closedAddress() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return "127.0.0.1:" + s.getLocalPort();
    }
  }

  @Test
  void aClearWithoutAScopeIsABadArgument() throws IOException {
    assertThat(run("history", "clear", "--uid", "42", "--api", closedAddress(), "--timeout", "5s"))
        .isEqualTo(HistoryCommand.EXIT_USAGE);
    assertThat(err.toString()).contains("--business", "--all");
  }

  @Test
  void aClearWithBothScopesIsABadArgument() throws IOException {
    assertThat(run("history", "clear", "--uid", "42", "--all", "--business", "VIDEO", "--api", closedAddress(),
        "--timeout", "5s")).isEqualTo(HistoryCommand.EXIT_USAGE);
    assertThat(err.toString()).contains("mutually exclusive");
  }

  @Test
  void eitherScopeGetsAsFarAsTheCall() throws IOException {
    assertThat(run("history", "clear", "--uid", "42", "--all", "--api", closedAddress(), "--timeout", "5s"))
        .isEqualTo(HistoryCommand.EXIT_FAILED);
    assertThat(run("history", "clear", "--uid", "42", "--business", "VIDEO,LIVE", "--api", closedAddress(),
        "--timeout", "5s")).isEqualTo(HistoryCommand.EXIT_FAILED);
  }
}
