package io.playline.bench.hostile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HostileReportTest {
  @Test
  void aPhaseMeetsTheTargetsOnlyWithinEveryBound() {
    assertThat(HostileReport.verdict(phase(0, 64L << 20, 1 << 20), 2.0, 1.0)).isEqualTo("met");
    assertThat(HostileReport.verdict(phase(1, (64L << 20) + 1, (1 << 20) + 1), 2.01, 1.0))
        .isEqualTo("missed: p99 errors RSS log");
  }

  @Test
  void stalledAcksMissTheLatencyTargetEvenWhenTheAckedOnesWereFast() {
    assertThat(HostileReport.verdict(phase(0, 0, 0), 1.0, 0.5)).isEqualTo("missed: p99 (acks stalled)");
  }

  @Test
  void anAttackerIsCutOffOnlyWhenRefusedWithinOneSecond() {
    assertThat(HostileReport.cutOff(attack(1_000_000_000L))).isTrue();
    assertThat(HostileReport.cutOff(attack(1_000_000_001L))).isFalse();
    assertThat(HostileReport.cutOff(attack(-1))).isFalse();
  }

  @Test
  void attackNamesRoundTripAndUnknownOnesAreRefused() {
    for (AttackKind k : AttackKind.values()) {
      assertThat(AttackKind.parse(k.cliName())).isEqualTo(k);
    }
    assertThatThrownBy(() -> AttackKind.parse("syn-flood")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void neighboursBehindTheAttackersAddressMustHave99PercentOfTheirConnectsAdmitted() {
    AttackStats.Snapshot admitted = new AttackStats.Snapshot(AttackKind.NEIGHBOURS, 20_000_000_000L, 1000, 990, 1000,
        0, -1, 0, Map.of());
    // 1000 sent, but 1011 connections: 11 were closed before their upgrade.
    AttackStats.Snapshot refused = new AttackStats.Snapshot(AttackKind.NEIGHBOURS, 20_000_000_000L, 1000, 1000, 1011,
        0, 5, 0, Map.of("close", 11L));
    assertThat(HostileReport.verdict(new PhaseResult("p", 60, 1000, 1, 2, 0, "{}", 0, 0, 0, 0, Double.NaN,
        List.of(admitted)), 1.0, 1.0)).isEqualTo("met");
    assertThat(HostileReport.verdict(new PhaseResult("p", 60, 1000, 1, 2, 0, "{}", 0, 0, 0, 0, Double.NaN,
        List.of(refused)), 1.0, 1.0)).isEqualTo("missed: connects");
  }

  /** A 60 s phase, so log bytes are bytes per minute. */
  private static PhaseResult phase(long errors, long rss, long logBytes) {
    return new PhaseResult("p", 60, 1000, 1, 2, errors, "{}", rss, logBytes, 0, 0, Double.NaN, List.of());
  }

  private static AttackStats.Snapshot attack(long firstRefusalNanos) {
    return new AttackStats.Snapshot(AttackKind.RAPID_RESET, 20_000_000_000L, 10, 0, 1, 1, firstRefusalNanos, 0,
        Map.of());
  }
}
