package io.playline.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.netty.handler.codec.http2.Http2Headers;
import io.playline.testing.MalformedGrpcMessages;
import io.playline.testing.RawHttp2Client;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;

/**
 * Malformed gRPC messages on the player port, each kind 300 times: answered with the right status
 * ({@code INTERNAL} for broken framing, {@code RESOURCE_EXHAUSTED} over the size limit once
 * decompressed), and logged at most once per kind per interval, never with a stack trace.
 */
@ExtendWith(RealRedisExtension.class)
class GrpcMessageErrorsTest {
  private static final String CONNECT = "/playline.v1.Gateway/Connect";
  static TestGateway gateway;

  @BeforeAll
  static void start(RedisNamespace ns) {
    gateway = new TestGateway(ns, Map.of());
  }

  @AfterAll
  static void stop() {
    gateway.close();
  }

  /**
   * Sends {@code body} on 300 calls of {@code headers}; returns what was answered and logged: grpc-java's
   * records and Playline's lines of INFO and above.
   */
  static Result send300(int port, Http2Headers headers, byte[] body) {
    Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    ListAppender<ILoggingEvent> lines = new ListAppender<>();
    lines.start();
    root.addAppender(lines);
    long start = System.nanoTime();
    try {
      MalformedGrpcMessages.Sent sent = MalformedGrpcMessages.send(port, headers, body, 300);
      // One line per kind per interval: a slow machine that took longer than an interval may log one more.
      long intervals = 1 + java.util.concurrent.TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start) / 10;
      return new Result(sent.statuses(), sent.grpcRecords(), new ArrayList<>(lines.list), intervals);
    } finally {
      root.detachAppender(lines);
    }
  }

  record Result(List<String> statuses, List<LogRecord> grpcRecords, List<ILoggingEvent> lines, long intervals) {
    void loggedAtMostOnceWithoutAStackTrace() {
      assertThat(grpcRecords).as("grpc-java's own records").isEmpty();
      assertThat(lines).as("Playline's summary lines").filteredOn(e -> e.getLoggerName().endsWith("ClientErrorLog"))
          .hasSizeLessThanOrEqualTo((int) intervals);
      assertThat(lines).as("warnings of gRPC or Playline").filteredOn(e -> e.getLevel()
          .isGreaterOrEqual(ch.qos.logback.classic.Level.WARN) && (e.getLoggerName().startsWith("io.grpc")
              || e.getLoggerName().startsWith("io.playline"))).isEmpty();
      assertThat(lines).allSatisfy(e -> assertThat(e.getThrowableProxy()).as(e.getFormattedMessage()).isNull());
    }
  }

  @Test
  void aLengthPrefixLongerThanItsMessage() {
    Result r = send300(gateway.server.grpcAddress().getPort(), RawHttp2Client.callHeaders(CONNECT),
        MalformedGrpcMessages.framed(false, 100, new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9}));
    assertThat(r.statuses()).hasSizeGreaterThanOrEqualTo(250).allSatisfy(s -> assertThat(s).startsWith("13 "));
    r.loggedAtMostOnceWithoutAStackTrace();
    assertThat(gateway.registry.find("playline.grpc.message.errors").tag("kind", "truncated").functionCounter()
        .count()).isGreaterThanOrEqualTo(250);
  }

  @Test
  void theCompressedFlagWithoutAnEncoding() {
    Result r = send300(gateway.server.grpcAddress().getPort(), RawHttp2Client.callHeaders(CONNECT),
        MalformedGrpcMessages.framed(true, 9, new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9}));
    assertThat(r.statuses()).hasSizeGreaterThanOrEqualTo(250).allSatisfy(s -> assertThat(s).startsWith("13 "));
    r.loggedAtMostOnceWithoutAStackTrace();
  }

  @Test
  void aGzipMessageInflatingPastTheLimitIsResourceExhausted() {
    byte[] bomb = MalformedGrpcMessages.gzipBomb(1 << 20);
    Result r = send300(gateway.server.grpcAddress().getPort(), RawHttp2Client.callHeaders(CONNECT)
        .add("grpc-encoding", "gzip"), MalformedGrpcMessages.framed(true, bomb.length, bomb));
    assertThat(r.statuses()).hasSizeGreaterThanOrEqualTo(250).allSatisfy(s -> assertThat(s).startsWith("8 "));
    r.loggedAtMostOnceWithoutAStackTrace();
  }
}
