package io.playline.node.write;

import io.prometheus.metrics.model.registry.Collector;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot.HistogramDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.Unit;
import java.util.Map;

/**
 * {@code playline_heartbeat_stage_seconds{stage}}: the heartbeat path's {@link StageHistogram}s as one
 * Prometheus classic histogram, a series per stage. Registered on the node's Prometheus registry
 * beside Micrometer's meters (a Micrometer timer would cost each heartbeat a time-window rotation,
 * a max and a bucket search per record).
 */
final class StageCollector implements Collector {
  static final String NAME = "playline_heartbeat_stage_seconds";
  private static final double[] UPPER_BOUNDS = upperBounds();

  private final Map<String, StageHistogram> stages;
  private final String help;

  /** @param stages each stage's histogram by its label value, in the order they are exposed */
  StageCollector(Map<String, StageHistogram> stages, String help) {
    this.stages = stages;
    this.help = help;
  }

  @Override
  public MetricSnapshot collect() {
    HistogramSnapshot.Builder out = HistogramSnapshot.builder().name(NAME).help(help).unit(Unit.SECONDS);
    stages.forEach((stage, histogram) -> {
      StageHistogram.Snapshot s = histogram.snapshot();
      out.dataPoint(HistogramDataPointSnapshot.builder()
          .classicHistogramBuckets(ClassicHistogramBuckets.of(UPPER_BOUNDS, s.counts()))
          .sum(s.sumMicros() / 1e6).labels(Labels.of("stage", stage)).build());
    });
    return out.build();
  }

  @Override
  public String getPrometheusName() {
    return NAME;
  }

  private static double[] upperBounds() {
    double[] bounds = new double[StageHistogram.FINITE_BUCKETS + 1];
    for (int i = 0; i < StageHistogram.FINITE_BUCKETS; i++) {
      bounds[i] = StageHistogram.upperBoundNanos(i) / 1e9;
    }
    bounds[StageHistogram.FINITE_BUCKETS] = Double.POSITIVE_INFINITY;
    return bounds;
  }
}
