package io.playline.gateway.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.playline.proto.v1.ClientFrame;
import org.junit.jupiter.api.Test;

class GatewayMetricsTest {
  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

  @Test
  void framesAreCountedByTypeAsPrometheusCounters() throws InterruptedException {
    GatewayMetrics metrics = new GatewayMetrics(registry);
    metrics.frame(ClientFrame.BodyCase.HEARTBEAT);
    metrics.frame(ClientFrame.BodyCase.HEARTBEAT);
    Thread other = new Thread(() -> metrics.frame(ClientFrame.BodyCase.HEARTBEAT)); // another loop
    other.start();
    other.join();
    metrics.frame(ClientFrame.BodyCase.AUTH);
    String text = registry.scrape();
    assertThat(text).contains("# TYPE playline_frames_received_total counter")
        .contains("playline_frames_received_total{type=\"heartbeat\"} 3.0")
        .contains("playline_frames_received_total{type=\"auth\"} 1.0")
        .contains("playline_frames_received_total{type=\"progress_query\"} 0.0");
  }

  @Test
  void twoOnOneRegistryCountIntoTheSameSeriesAsCountersWould() {
    GatewayMetrics first = new GatewayMetrics(registry);
    first.frame(ClientFrame.BodyCase.HEARTBEAT);
    GatewayMetrics second = new GatewayMetrics(registry);
    second.frame(ClientFrame.BodyCase.HEARTBEAT);
    second.frame(ClientFrame.BodyCase.HEARTBEAT);
    assertThat(registry.find("playline.frames.received").tag("type", "heartbeat").functionCounters()).hasSize(1);
    assertThat(registry.get("playline.frames.received").tag("type", "heartbeat").functionCounter().count())
        .isEqualTo(3);
    // Another registry has series of its own.
    PrometheusMeterRegistry other = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new GatewayMetrics(other).frame(ClientFrame.BodyCase.HEARTBEAT);
    assertThat(other.get("playline.frames.received").tag("type", "heartbeat").functionCounter().count()).isEqualTo(1);
  }
}
