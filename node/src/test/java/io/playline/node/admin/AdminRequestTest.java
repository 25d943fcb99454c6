package io.playline.node.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.DefaultEventLoopGroup;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.playline.testing.ManualTime;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What the admin handler does with requests that never arrived whole. */
class AdminRequestTest {
  private final AtomicInteger scrapes = new AtomicInteger();
  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT) {
    @Override
    public String scrape() {
      scrapes.incrementAndGet();
      return super.scrape();
    }
  };
  private final DefaultEventLoopGroup watched = new DefaultEventLoopGroup(1);
  private final ManualTime time = new ManualTime();
  private final CountDownLatch release = new CountDownLatch(1);

  @AfterEach
  void stop() {
    release.countDown();
    watched.shutdownGracefully(0, 1, TimeUnit.SECONDS);
  }

  private EmbeddedChannel channel() {
    return new EmbeddedChannel(new HttpServerCodec(), new HttpObjectAggregator(16 * 1024),
        new AdminHttpHandler(registry, new Readiness(), watched, AdminConfig.open("127.0.0.1"), time));
  }

  private static void send(EmbeddedChannel ch, String text) {
    ch.writeInbound(Unpooled.copiedBuffer(text, StandardCharsets.US_ASCII));
  }

  /** What the handler wrote, as text. */
  private static String written(EmbeddedChannel ch) {
    StringBuilder text = new StringBuilder();
    for (ByteBuf b = ch.readOutbound(); b != null; b = ch.readOutbound()) {
      text.append(b.toString(StandardCharsets.US_ASCII));
      b.release();
    }
    return text.toString();
  }

  @Test
  void livezNamesAStuckLoopWhenItsTimeoutPassesAndNotBefore() {
    // A task that never returns wedges the watched loop, as a blocking call on an event loop would.
    watched.next().execute(() -> {
      try {
        release.await(60, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    EmbeddedChannel ch = channel();
    send(ch, "GET /livez HTTP/1.1\r\nHost: x\r\n\r\n");
    time.advance(Duration.ofMillis(AdminHttpHandler.LIVENESS_TIMEOUT_MS).minusNanos(1));
    ch.runPendingTasks();
    assertThat(written(ch)).isEmpty();
    time.advance(Duration.ofNanos(1));
    ch.runPendingTasks();
    assertThat(written(ch)).startsWith("HTTP/1.1 503 Service Unavailable").contains("not live").endsWith(" 0\n");
    ch.finishAndReleaseAll();
  }

  @Test
  void aWholeMetricsRequestIsScraped() {
    EmbeddedChannel ch = channel();
    send(ch, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
    assertThat(written(ch)).startsWith("HTTP/1.1 200 OK");
    assertThat(scrapes).hasValue(1);
    ch.finishAndReleaseAll();
  }

  @Test
  void aMetricsRequestCutShortByTheCloseCostsNoScrape() {
    EmbeddedChannel ch = channel();
    // A slowloris' request: its headers never end; then the connection closes (its deadline, or the client).
    send(ch, "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: aaaa");
    ch.close();
    assertThat(scrapes).hasValue(0);
    ch.finishAndReleaseAll();
  }

  @Test
  void aMalformedRequestGets400AndTheConnectionCloses() {
    EmbeddedChannel ch = channel();
    send(ch, "GET /metrics" + "x".repeat(5000) + " HTTP/1.1\r\nHost: x\r\n\r\n");
    assertThat(written(ch)).startsWith("HTTP/1.1 400 Bad Request");
    ch.runPendingTasks();
    assertThat(ch.isOpen()).isFalse();
    assertThat(scrapes).hasValue(0);
    ch.finishAndReleaseAll();
  }
}
