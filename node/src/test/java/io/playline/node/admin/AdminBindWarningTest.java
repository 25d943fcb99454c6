package io.playline.node.admin;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.playline.node.loops.EventLoops;
import io.playline.time.Time;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The warning {@link AdminHttpServer} logs at start when it binds beyond loopback with an open
 * {@code /metrics} (no {@code admin.token}): once for the wildcard address without a token, never on
 * loopback, never with a token. Each server binds port 0 and is sent nothing.
 */
class AdminBindWarningTest {
  private static final String TOKEN = "t".repeat(AdminConfig.MIN_TOKEN_CHARS);

  /** What one start of the admin server logged at WARN, and the port it bound. */
  private record Started(int port, List<String> warnings) {}

  private static Started start(AdminConfig access) throws InterruptedException {
    Logger logger = (Logger) LoggerFactory.getLogger(AdminHttpServer.class);
    ListAppender<ILoggingEvent> lines = new ListAppender<>();
    lines.start();
    logger.addAppender(lines);
    try (EventLoops loops = EventLoops.create(1);
        AdminHttpServer admin = AdminHttpServer.start(loops, access, 0,
            new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), new Readiness(), Time.SYSTEM)) {
      List<String> warnings = lines.list.stream().filter(e -> e.getLevel() == Level.WARN)
          .map(ILoggingEvent::getFormattedMessage).toList();
      return new Started(admin.address().getPort(), warnings);
    } finally {
      logger.detachAppender(lines);
    }
  }

  private static AdminConfig withToken(String bindHost, String token) {
    AdminConfig open = AdminConfig.open(bindHost);
    return new AdminConfig(bindHost, token, open.maxConnections(), open.maxConnectionsPerAddress(),
        open.requestTimeout());
  }

  @Test
  void theWildcardAddressWithoutATokenWarnsOnceNamingAdminToken() throws Exception {
    Started started = start(AdminConfig.open("0.0.0.0"));
    assertThat(started.warnings()).hasSize(1);
    assertThat(started.warnings().get(0)).contains("admin.token").contains(":" + started.port())
        .contains("reachable beyond loopback");
  }

  @Test
  void loopbackWithoutATokenDoesNotWarn() throws Exception {
    assertThat(start(AdminConfig.open("127.0.0.1")).warnings()).isEmpty();
  }

  @Test
  void theWildcardAddressWithATokenDoesNotWarn() throws Exception {
    assertThat(start(withToken("0.0.0.0", TOKEN)).warnings()).isEmpty();
  }
}
