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
 * What a newcomer sees when the operator commands find no node: the cause in words, the address and
 * the next step (it was {@code cannot read http://127.0.0.1:9100: null} and {@code UNAVAILABLE: io
 * exception}).
 */
class UnreachableNodeTest {
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    return PlaylineCli.run(new PrintWriter(new StringWriter()), new PrintWriter(err), args);
  }

  /** A loopback port nothing listens on (bound, then released). */
  private static int closedPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  @Test
  void historySaysConnectionRefusedWhereAndHowToStartANode() throws IOException {
    String address = "127.0.0.1:" + closedPort();
    assertThat(run("history", "list", "--uid", "42", "--api", address, "--timeout", "5s")).isEqualTo(1);
    assertThat(err.toString())
        .contains("cannot reach the internal API at " + address + " (connection refused)")
        .contains("bin/playline standalone").contains("--api HOST:PORT")
        .doesNotContain("io exception");
  }

  @Test
  void statusSaysConnectionRefusedWhereAndHowToStartANode() throws IOException {
    String url = "http://127.0.0.1:" + closedPort();
    assertThat(run("status", "--admin", url, "--interval", "100ms")).isEqualTo(1);
    assertThat(err.toString())
        .contains("cannot reach the node's admin port at " + url + " (connection refused)")
        .contains("bin/playline standalone").contains("--admin URL")
        .doesNotContain("null");
  }
}
