package io.playline.bench.probe;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PrometheusTextTest {
  private static final String SCRAPE = """
      # HELP jvm_memory_used_bytes The amount of used memory
      # TYPE jvm_memory_used_bytes gauge
      jvm_memory_used_bytes{area="heap",id="PS Eden Space"} 1.2E7
      jvm_memory_used_bytes{area="heap",id="PS Old Gen"} 3000000.0
      jvm_memory_used_bytes{area="nonheap",id="Metaspace"} 5.0E7
      playline_redis_round_trips_total 42.0
      playline_kafka_records_sent_total{topic="history"} 7.0
      playline_kafka_records_sent_total{topic="first_today_other"} 100.0
      playline_first_today_total{result="echo_skip"} NaN
      """;

  @Test
  void sumsTheHeapPoolsOnly() {
    PrometheusText m = PrometheusText.parse(SCRAPE);
    assertThat(m.sum("jvm_memory_used_bytes", "area=\"heap\"")).isEqualTo(15_000_000.0);
    assertThat(m.sum("jvm_memory_used_bytes")).isEqualTo(65_000_000.0);
  }

  @Test
  void matchesWholeMetricNamesAndWholeLabels() {
    PrometheusText m = PrometheusText.parse(SCRAPE);
    assertThat(m.sum("playline_redis_round_trips_total")).isEqualTo(42.0);
    assertThat(m.sum("playline_redis_round_trips")).isZero();
    assertThat(m.sum("playline_kafka_records_sent_total", "topic=\"history\"")).isEqualTo(7.0);
  }

  @Test
  void skipsNaNSamplesAndComputesDeltas() {
    PrometheusText before = PrometheusText.parse("playline_redis_round_trips_total 40.0\n");
    PrometheusText after = PrometheusText.parse(SCRAPE);
    assertThat(after.sum("playline_first_today_total")).isZero();
    assertThat(after.delta(before, "playline_redis_round_trips_total")).isEqualTo(2.0);
    assertThat(after.delta(PrometheusText.empty(), "missing_total")).isZero();
  }

  @Test
  void quantilesOfAHistogramAreTakenOverTheWindowBetweenTwoScrapes() {
    PrometheusText before = PrometheusText.parse("""
        t_seconds_bucket{stage="a",le="0.001",} 90.0
        t_seconds_bucket{stage="a",le="0.01",} 100.0
        t_seconds_bucket{stage="a",le="+Inf",} 100.0
        t_seconds_bucket{stage="b",le="0.001",} 5.0
        t_seconds_bucket{stage="b",le="+Inf",} 5.0
        """);
    // In the window: 10 more under 1 ms, 89 between 1 and 10 ms, 1 above 10 ms (stage a).
    PrometheusText after = PrometheusText.parse("""
        t_seconds_bucket{stage="a",le="0.001",} 100.0
        t_seconds_bucket{stage="a",le="0.01",} 199.0
        t_seconds_bucket{stage="a",le="+Inf",} 200.0
        t_seconds_bucket{stage="b",le="0.001",} 5.0
        t_seconds_bucket{stage="b",le="+Inf",} 5.0
        """);
    assertThat(after.quantileSince(before, 0.10, "t_seconds", "stage=\"a\"")).isEqualTo(0.001);
    assertThat(after.quantileSince(before, 0.50, "t_seconds", "stage=\"a\"")).isEqualTo(0.01);
    assertThat(after.quantileSince(before, 0.99, "t_seconds", "stage=\"a\"")).isEqualTo(0.01);
    assertThat(after.quantileSince(before, 0.999, "t_seconds", "stage=\"a\"")).isEqualTo(Double.POSITIVE_INFINITY);
    // Over all time stage a's median is under 1 ms; nothing of stage b in the window.
    assertThat(after.quantileSince(PrometheusText.empty(), 0.50, "t_seconds", "stage=\"a\"")).isEqualTo(0.001);
    assertThat(after.quantileSince(before, 0.50, "t_seconds", "stage=\"b\"")).isNaN();
    assertThat(after.quantileSince(before, 0.50, "missing_seconds")).isNaN();
  }

  @Test
  void bucketBoundsAreReadAsTheExpositionWritesThemAndOnlyFromTheLeLabel() {
    // Prometheus client 1.x (Micrometer 1.13+): no trailing comma, bounds in Java's notation; a
    // label whose name ends in "le" is not the bound.
    PrometheusText after = PrometheusText.parse("""
        t_seconds_bucket{role="x",stage="a",le="1.0E-5"} 1.0
        t_seconds_bucket{role="x",stage="a",le="0.002"} 4.0
        t_seconds_bucket{role="x",stage="a",le="+Inf"} 4.0
        u_seconds_bucket{le="0.5"} 2.0
        u_seconds_bucket{le="+Inf"} 2.0
        """);
    assertThat(after.quantileSince(PrometheusText.empty(), 0.25, "t_seconds", "stage=\"a\"")).isEqualTo(1.0E-5);
    assertThat(after.quantileSince(PrometheusText.empty(), 0.99, "t_seconds", "stage=\"a\"")).isEqualTo(0.002);
    assertThat(after.quantileSince(PrometheusText.empty(), 0.99, "u_seconds")).isEqualTo(0.5);
  }
}
