package io.playline.node.edge;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class TokenBucketTest {
  private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

  @Test
  void grantsABurstUpToItsCapacityThenItsRateAndSaysWhenToRetry() {
    TokenBucket bucket = new TokenBucket(10, 10, SECOND, 0);
    for (int i = 0; i < 10; i++) {
      assertThat(bucket.take(1, 0)).isZero();
    }
    assertThat(bucket.take(1, 0)).isEqualTo(SECOND / 10);
    assertThat(bucket.take(1, SECOND / 10)).isZero();
    assertThat(bucket.take(1, SECOND / 10)).isEqualTo(SECOND / 10);
    assertThat(bucket.isFull(SECOND / 10)).isFalse();
    // Idle time refills no more than one bucket.
    assertThat(bucket.isFull(100 * SECOND)).isTrue();
    assertThat(bucket.take(10, 100 * SECOND)).isZero();
    assertThat(bucket.take(1, 100 * SECOND)).isPositive();
  }

  @Test
  void theBurstIsSetApartFromTheRate() {
    TokenBucket bucket = new TokenBucket(1000, 100, SECOND, 0);
    assertThat(bucket.take(1000, 0)).as("a burst of ten seconds' worth").isZero();
    assertThat(bucket.take(1, 0)).isEqualTo(SECOND / 100);
    assertThat(bucket.take(100, SECOND)).as("then the rate").isZero();
    assertThat(bucket.take(1, SECOND)).isPositive();
    assertThat(bucket.isFull(11 * SECOND)).isTrue();
  }

  @Test
  void aTakeLargerThanTheCapacityPassesOnAFullBucketAndIsPaidFor() {
    TokenBucket bucket = new TokenBucket(10, 10, SECOND, 0);
    assertThat(bucket.take(30, 0)).as("never refused forever: passes on a full bucket").isZero();
    assertThat(bucket.take(1, 0)).as("then owes the 20 tokens past the bucket, plus this one")
        .isEqualTo(21 * SECOND / 10);
    assertThat(bucket.take(10, 2 * SECOND)).as("the debt is not yet paid").isPositive();
    assertThat(bucket.take(10, 3 * SECOND)).as("three periods pay it and refill one bucket").isZero();
    assertThat(bucket.isFull(4 * SECOND)).isTrue();
    assertThat(bucket.take(30, 4 * SECOND)).as("and the next oversized take passes again").isZero();
  }
}
