package io.playline.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class LoadSnapshotTest {
  @Test
  void survivesTheChildProcessLineAndSumsWithOthers() {
    Histogram h = LoadSnapshot.newHistogram();
    h.recordValue(1_000);
    h.recordValue(250_000);
    long[] errors = new long[LoadStats.MAX_CODE];
    errors[3] = 2;
    LoadSnapshot a = new LoadSnapshot(10, 5, 1, 100, 90, 3, errors, Map.of(4003, 1L), h);
    LoadSnapshot back = LoadSnapshot.decode(a.encode());
    assertThat(back.open()).isEqualTo(5);
    assertThat(back.acked()).isEqualTo(90);
    assertThat(back.errorsByName()).containsExactly(Map.entry("RATE_LIMITED", 2L));
    assertThat(back.closes()).containsExactly(Map.entry(4003, 1L));
    assertThat(back.interval().getTotalCount()).isEqualTo(2);
    assertThat(back.interval().getMaxValue()).isEqualTo(h.getMaxValue());

    LoadSnapshot sum = back.plus(a);
    assertThat(sum.open()).isEqualTo(10);
    assertThat(sum.sent()).isEqualTo(200);
    assertThat(sum.closes()).containsExactly(Map.entry(4003, 2L));
    assertThat(sum.interval().getTotalCount()).isEqualTo(4);
  }

  @Test
  void specRoundTripsThroughChildArguments() {
    LoadSpec spec = new LoadSpec("ws", java.util.List.of(java.net.URI.create("ws://127.0.0.1:8080/v1/stream")), 100,
        50, 20, 2, "secret", 1000, LoadSpec.FlagMode.NONE, java.time.ZoneId.of("UTC"), 1, 4, 300, 2, 15_000, 30_000);
    LoadSpec back = LoadSpec.fromArgs(spec.toArgs(), "secret");
    assertThat(back).isEqualTo(spec);
    assertThat(back.addressOctet(100)).isEqualTo(7);
  }
}
