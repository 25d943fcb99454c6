package io.playline.node.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.playline.core.config.ConfigException;
import io.playline.core.config.ConfigSource;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How the batching keys become a {@link BatcherConfig}. */
class BatcherConfigTest {
  @Test
  void aWaitingBatchNeverWaitsForMoreHeartbeatsThanTheQueueHolds() {
    Duration longWait = Duration.ofSeconds(30);
    assertThat(new BatcherConfig(512, longWait, true, 100, 8, longWait, Duration.ofMillis(25), 101).enoughHeartbeats())
        .isEqualTo(100);
  }

  @Test
  void aRetiredBatchingKeyIsRefusedNotIgnored() {
    for (String retired : List.of("heartbeat.batch.linger", "heartbeat.batch.linger.heartbeats")) {
      assertThatThrownBy(() -> BatcherConfig.from(ConfigSource.empty().with(Map.of(retired, "5"))))
          .isInstanceOf(ConfigException.class).hasMessageContaining(retired + " was replaced by heartbeat.ack.budget");
    }
    assertThat(BatcherConfig.from(ConfigSource.empty()).ackBudget()).isEqualTo(Duration.ofMillis(25));
  }
}
