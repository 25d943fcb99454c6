package io.playline.node.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.channel.DefaultEventLoopGroup;
import io.playline.node.loops.EventLoops;
import io.playline.time.Time;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class AdminLivenessTest {
  @Test
  void livezFailsWhileAnEventLoopIsStuckAndRecoversAfter() throws Exception {
    DefaultEventLoopGroup watched = new DefaultEventLoopGroup(2);
    CountDownLatch release = new CountDownLatch(1);
    try (EventLoops loops = EventLoops.create(1);
        AdminHttpServer admin = AdminHttpServer.start(loops, watched, AdminConfig.open("127.0.0.1"), 0,
            new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), new Readiness(), Time.SYSTEM)) {
      HttpClient http = HttpClient.newHttpClient();
      HttpRequest livez = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + admin.address().getPort() + "/livez"))
          .timeout(Duration.ofSeconds(30)).build();
      assertThat(http.send(livez, HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);

      // A task that never returns wedges one loop, as a blocking call on an event loop would.
      watched.next().execute(() -> {
        try {
          release.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      HttpResponse<String> stuck = http.send(livez, HttpResponse.BodyHandlers.ofString());
      assertThat(stuck.statusCode()).isEqualTo(503);
      assertThat(stuck.body()).startsWith("not live");

      release.countDown();
      assertThat(http.send(livez, HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
    } finally {
      release.countDown();
      watched.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
  }

  @Test
  void theAdminPortAnswersWhileEveryIoLoopIsStuck() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    try (EventLoops loops = EventLoops.create(1);
        AdminHttpServer admin = AdminHttpServer.start(loops, AdminConfig.open("127.0.0.1"), 0,
            new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), new Readiness(), Time.SYSTEM)) {
      loops.workers().next().execute(() -> {
        try {
          release.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      HttpClient http = HttpClient.newHttpClient();
      URI base = URI.create("http://127.0.0.1:" + admin.address().getPort());
      HttpResponse<String> metrics = http.send(HttpRequest.newBuilder(base.resolve("/metrics"))
          .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(metrics.statusCode()).isEqualTo(200);
      HttpResponse<String> livez = http.send(HttpRequest.newBuilder(base.resolve("/livez"))
          .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(livez.statusCode()).isEqualTo(503);
      release.countDown(); // before the loops close, or closing waits for the wedged one
    } finally {
      release.countDown();
    }
  }
}
