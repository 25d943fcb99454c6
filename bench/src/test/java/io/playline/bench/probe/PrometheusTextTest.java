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
}
