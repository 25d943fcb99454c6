package io.playline.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.playline.gateway.ws.WebSocketChannelInitializer;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;

/**
 * A client that leaves in the middle of a fragmented WebSocket message (a first frame without FIN,
 * then end of stream) is let go quietly: no warning with a stack trace for each such client, which
 * any player could otherwise repeat to flood the node's log. Found by {@code WebSocketFuzzTest}.
 */
@ExtendWith(RealRedisExtension.class)
class LeftMidMessageTest {

  @Test
  void aClientLeavingMidMessageIsClosedWithoutAWarning(RedisNamespace ns) throws Exception {
    Logger handlerLog = (Logger) LoggerFactory.getLogger(WebSocketChannelInitializer.class.getPackageName());
    ListAppender<ILoggingEvent> logged = new ListAppender<>();
    logged.start();
    handlerLog.addAppender(logged);
    try (TestGateway gateway = new TestGateway(ns, Map.of())) {
      try (RawWebSocket ws = new RawWebSocket(gateway.server.wsAddress().getPort(), 0).upgraded()) {
        ws.out.write(new byte[] {0x02, (byte) 0x82, 0, 0, 0, 0, 1, 2}); // binary, no FIN, masked, 2 bytes
        ws.out.flush();
        ws.socket.shutdownOutput();
        assertThat(ws.closedByServer()).isTrue();
      }
      await("connection released").atMost(Duration.ofSeconds(10))
          .until(() -> gateway.registry.get("playline.connections.open").gauge().value() == 0);
      assertThat(logged.list).filteredOn(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
          .extracting(ILoggingEvent::getFormattedMessage).isEmpty();
    } finally {
      handlerLog.detachAppender(logged);
    }
  }
}
