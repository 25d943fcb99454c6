package io.playline.bench.heartbeats.baseline;

import static org.assertj.core.api.Assertions.assertThat;

import io.playline.node.loops.EventLoops;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

/** The echo baseline runs as many I/O loops as a gateway with default settings. */
class EchoServerTest {
  @Test
  void runsAGatewaysDefaultLoopCountNotNettysDefault() throws Exception {
    try (EchoServer echo = EchoServer.start(new InetSocketAddress("127.0.0.1", 0), 0)) {
      assertThat(echo.ioThreads()).isEqualTo(EventLoops.defaultWorkerThreads())
          .isEqualTo(Runtime.getRuntime().availableProcessors());
    }
  }
}
