package io.playline.node.push;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.playline.core.store.RedisConnections;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(RealRedisExtension.class)
class RedisUserNodesRegistryTest {

  @Test
  void theJoinsAnswerNobodyElseIsKeptEvenWhenRedisAnswersBeforeTheConnectionIsRegistered(RedisNamespace ns)
      throws Exception {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    try (RedisConnections redis = RedisConnections.connect(ns.redisUri(), false, Duration.ofSeconds(5))) {
      RedisUserNodesRegistry registry = new RedisUserNodesRegistry(redis.shared(), new PushKeys(ns.keyPrefix()), "node-a",
          Duration.ofMinutes(1), Duration.ZERO, Duration.ofMinutes(10), Clock.systemUTC(), new PushMetrics(meters));
      // The connection registry calls add() while it installs the user: holds() cannot see the user
      // yet if Redis answers first (as it may on a loaded machine). Here it never does.
      registry.holdersFrom(uid -> false);
      registry.add(7);
      assertThat(registry.otherNodes(7).toCompletableFuture().get(10, TimeUnit.SECONDS)).isEmpty();
      assertThat(lookups(meters)).isEqualTo(1);
      // The answer settled (the future above completes after it is kept): reused, not read again.
      assertThat(registry.otherNodes(7).toCompletableFuture().get(10, TimeUnit.SECONDS)).isEmpty();
      assertThat(lookups(meters)).as("registry reads").isEqualTo(1);
      // A user this node does not hold (a backend's push) gets "nobody" only for the short cache (0 here).
      assertThat(registry.otherNodes(8).toCompletableFuture().get(10, TimeUnit.SECONDS)).isEmpty();
      assertThat(registry.otherNodes(8).toCompletableFuture().get(10, TimeUnit.SECONDS)).isEmpty();
      assertThat(lookups(meters)).isEqualTo(3);
    }
  }

  private static double lookups(SimpleMeterRegistry meters) {
    return meters.get("playline.redis.commands").tag("path", "push-lookup").counter().count();
  }
}
