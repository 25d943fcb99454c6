package io.playline.bench.heartbeats;

import static org.assertj.core.api.Assertions.assertThat;

import io.playline.bench.probe.PrometheusText;
import org.junit.jupiter.api.Test;

class FlushCyclesTest {
  /** One sample: acks grow 100/s; a flush at t = 10 and t = 70 sends 4 records; the job writes 1000 puts 2 s later. */
  private static PrometheusText at(int t) {
    int flushes = t >= 70 ? 2 : t >= 10 ? 1 : 0;
    int puts = (t >= 72 ? 2 : t >= 12 ? 1 : 0) * 1000;
    return PrometheusText.parse("playline_writeback_flushes_total{outcome=\"success\"} " + flushes + "\n"
        + "playline_heartbeat_acks_total " + 100 * t + "\n"
        + "playline_kafka_records_sent_total{topic=\"history\"} " + 4 * flushes + "\n"
        + "playline_job_records_total " + (puts / 250) + "\n"
        + "playline_job_hbase_mutations_total{op=\"put\"} " + puts + "\n");
  }

  @Test
  void windowSpansExactlyOneFlushCycleAndTheJobSettlingAfterEach() {
    FlushCycles cycles = new FlushCycles(1);
    int t = 0;
    while (!cycles.done() && t < 200) {
      cycles.feed(t * 1_000_000_000L, at(t));
      t++;
    }
    assertThat(cycles.done()).isTrue();
    FlushCycles.Window w = cycles.window();
    assertThat(w).isNotNull();
    assertThat(w.seconds()).isEqualTo(60.0);
    assertThat(w.heartbeats()).isEqualTo(6000.0);
    assertThat(w.kafkaRecords()).isEqualTo(4.0);
    assertThat(w.hbaseMutations()).isEqualTo(1000.0);
  }

  @Test
  void noWindowBeforeTheSecondFlush() {
    FlushCycles cycles = new FlushCycles(1);
    for (int t = 0; t < 60; t++) {
      cycles.feed(t * 1_000_000_000L, at(t));
    }
    assertThat(cycles.done()).isFalse();
    assertThat(cycles.window()).isNull();
    assertThat(cycles.flushesSeen()).isEqualTo(1);
  }
}
