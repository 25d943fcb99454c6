package io.playline.node.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.playline.time.Time;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class StageHistogramTest {

  @Test
  void eachValueLandsInTheFirstBucketWhoseUpperBoundHoldsIt() {
    assertThat(StageHistogram.bucket(0)).isZero();
    assertThat(StageHistogram.bucket(1)).isZero();
    assertThat(StageHistogram.upperBoundNanos(0)).isEqualTo(8_192);
    long previous = 0;
    for (int i = 0; i < StageHistogram.FINITE_BUCKETS; i++) {
      long bound = StageHistogram.upperBoundNanos(i);
      assertThat(bound).as("bound %d", i).isGreaterThan(previous);
      if (i > 0) {
        // Four buckets per power of two: neighbours 14 % (8/7) to 25 % apart.
        assertThat((double) bound / previous).as("bound %d", i).isBetween(8 / 7.0, 1.25);
      }
      assertThat(StageHistogram.bucket(bound)).as("at bound %d", i).isEqualTo(i);
      assertThat(StageHistogram.bucket(bound + 1)).as("just above bound %d", i).isEqualTo(i + 1);
      assertThat(StageHistogram.bucket(previous + 1)).as("just above the bound below %d", i).isEqualTo(i);
      previous = bound;
    }
    assertThat(previous).isEqualTo(1L << 34);
    assertThat(StageHistogram.bucket(Long.MAX_VALUE)).isEqualTo(StageHistogram.FINITE_BUCKETS);
  }

  @Test
  void aWeightedRecordCountsEachOfItsDurationsAndANegativeOneCountsAsZero() {
    StageHistogram h = new StageHistogram();
    h.record(1_000_000, 64);
    h.record(20_000);
    h.record(-5);
    h.record(7, -1);
    StageHistogram.Snapshot s = h.snapshot();
    assertThat(s.count()).isEqualTo(66);
    assertThat(s.sumMicros()).isEqualTo(64_000L + 20);
    assertThat(s.counts()[StageHistogram.bucket(1_000_000)]).isEqualTo(64);
    assertThat(s.counts()[StageHistogram.bucket(20_000)]).isEqualTo(1);
    assertThat(s.counts()[0]).as("the negative duration").isEqualTo(1);
  }

  @Test
  void theStagesAreOnePrometheusHistogramWithCumulativeBucketsASeriesPerStage() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    BatchMetrics metrics = new BatchMetrics(registry, Time.SYSTEM);
    metrics.stage("redis").record(1_500_000, 64); // a batch of 64 heartbeats, 1.5 ms round trip
    metrics.stage("redis").record(9_000);
    metrics.stage("node").record(3_000_000_000L);
    String text = registry.scrape();

    assertThat(text).contains("# TYPE playline_heartbeat_stage_seconds histogram");
    assertThat(sample(text, "playline_heartbeat_stage_seconds_count{stage=\"redis\"}")).isEqualTo(65);
    assertThat(sample(text, "playline_heartbeat_stage_seconds_sum{stage=\"redis\"}")).isEqualTo(0.096009);
    assertThat(sample(text, "playline_heartbeat_stage_seconds_count{stage=\"wait\"}")).isZero();
    // Cumulative: 9 µs is in the bucket up to 10.24 µs; the 64 round trips of 1.5 ms from 1.572864 ms up.
    assertThat(bucket(text, "redis", "8.192E-6")).isZero();
    assertThat(bucket(text, "redis", "1.024E-5")).isEqualTo(1);
    assertThat(bucket(text, "redis", "0.00131072")).isEqualTo(1);
    assertThat(bucket(text, "redis", "0.001572864")).isEqualTo(65);
    assertThat(bucket(text, "redis", "+Inf")).isEqualTo(65);
    assertThat(bucket(text, "node", "2.68435456")).isZero();
    assertThat(bucket(text, "node", "3.221225472")).isEqualTo(1);
    assertThat(Pattern.compile("playline_heartbeat_stage_seconds_bucket\\{stage=\"node\",le=").matcher(text).results()
        .count()).isEqualTo(StageHistogram.FINITE_BUCKETS + 1);
  }

  @Test
  void aClosedWritePathTakesItsStagesOffTheRegistrySoANewOneCanExposeItsOwn() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    BatchMetrics first = new BatchMetrics(registry, Time.SYSTEM);
    first.stage("wait").record(50_000);
    first.close();
    assertThat(registry.scrape()).doesNotContain("playline_heartbeat_stage_seconds");
    BatchMetrics second = new BatchMetrics(registry, Time.SYSTEM);
    second.stage("wait").record(50_000, 2);
    assertThat(sample(registry.scrape(), "playline_heartbeat_stage_seconds_count{stage=\"wait\"}")).isEqualTo(2);
  }

  @Test
  void onAnotherRegistryTheStagesAreKeptButNotExposed() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    BatchMetrics metrics = new BatchMetrics(registry, Time.SYSTEM);
    metrics.stage("node").record(1_000);
    assertThat(metrics.stage("node").count()).isEqualTo(1);
    assertThat(registry.find("playline.heartbeat.stage").meters()).isEmpty();
    metrics.close();
  }

  private static double bucket(String text, String stage, String le) {
    return sample(text, "playline_heartbeat_stage_seconds_bucket{stage=\"" + stage + "\",le=\"" + le + "\"}");
  }

  private static double sample(String text, String series) {
    Matcher m = Pattern.compile("(?m)^" + Pattern.quote(series) + " (\\S+)$").matcher(text);
    assertThat(m.find()).as("%s in%n%s", series, text).isTrue();
    return Double.parseDouble(m.group(1));
  }
}
