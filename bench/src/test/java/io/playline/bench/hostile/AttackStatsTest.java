package io.playline.bench.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import io.playline.testing.ManualTime;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class AttackStatsTest {
  private final ManualTime time = new ManualTime();

  @Test
  void theFirstRefusalIsTimedFromTheAttackersFirstRequestNotFromItsStart() {
    AttackStats stats = new AttackStats(AttackKind.SESSION_CHURN, time);
    // Three seconds to connect and start under the attackers' CPU quota: not the node's doing.
    time.advance(Duration.ofSeconds(3));
    stats.sent(1);
    time.advance(Duration.ofMillis(400));
    long sentAt = time.nanoTime();
    time.advance(Duration.ofMillis(500));
    stats.refused("RATE_LIMITED", sentAt);
    stats.refused("close-4003");
    assertThat(stats.snapshot().firstRefusalNanos()).isEqualTo(Duration.ofMillis(400).toNanos());
    assertThat(stats.snapshot().elapsedNanos()).isEqualTo(Duration.ofMillis(3900).toNanos());
  }

  @Test
  void aRefusalBeforeAnyRequestIsTimedFromTheStart() {
    AttackStats stats = new AttackStats(AttackKind.IDLE_H2, time);
    time.advance(Duration.ofMillis(700));
    stats.refused("close");
    assertThat(stats.snapshot().firstRefusalNanos()).isEqualTo(Duration.ofMillis(700).toNanos());
  }
}
