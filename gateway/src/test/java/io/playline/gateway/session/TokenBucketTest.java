package io.playline.gateway.session;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class TokenBucketTest {
  private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

  @Test
  void grantsABurstUpToItsCapacityThenItsRateAndSaysWhenToRetry() {
    TokenBucket bucket = new TokenBucket(10, SECOND, 0);
    for (int i = 0; i < 10; i++) {
      assertThat(bucket.take(1, 0)).isZero();
    }
    assertThat(bucket.take(1, 0)).isEqualTo(SECOND / 10);
    assertThat(bucket.take(1, SECOND / 10)).isZero();
    assertThat(bucket.take(1, SECOND / 10)).isEqualTo(SECOND / 10);
    // Idle time refills no more than one bucket.
    assertThat(bucket.take(10, 100 * SECOND)).isZero();
    assertThat(bucket.take(1, 100 * SECOND)).isPositive();
  }

  @Test
  void aTakeLargerThanTheCapacityPassesOnAFullBucketAndLeavesDebt() {
    TokenBucket bucket = new TokenBucket(10, SECOND, 0);
    assertThat(bucket.take(30, 0)).isZero();
    assertThat(bucket.take(1, SECOND)).isPositive();
    assertThat(bucket.take(1, 3 * SECOND)).isZero();
  }
}
