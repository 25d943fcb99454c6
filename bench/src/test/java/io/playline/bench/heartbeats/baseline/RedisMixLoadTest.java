package io.playline.bench.heartbeats.baseline;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(RealRedisExtension.class)
class RedisMixLoadTest {

  @Test
  void sendsPlaylinesCommandMixPerHeartbeat(RedisNamespace ns) throws Exception {
    RedisClient client = RedisClient.create(ns.redisUri());
    try (StatefulRedisConnection<String, String> info = client.connect()) {
      Map<String, Long> before = calls(info.sync().info("commandstats"));
      // 20 heartbeats per batch, 8 users per write_history call: 3 calls; half the heartbeats
      // check first-today and look up the push registry: 10 of each per batch.
      RedisMixLoad.Mix mix = new RedisMixLoad.Mix(20, 1, 0.5, 0.5, 50, 7_000_000, 2);
      RedisMixLoad.Result result = RedisMixLoad.run(ns.redisUri(), Map.of("redis.write.users.per.script", "8"), mix,
          Duration.ofMillis(200),
          Duration.ofMillis(500), () -> {}, () -> {});
      Map<String, Long> after = calls(info.sync().info("commandstats"));

      assertThat(result.heartbeats()).isPositive();
      assertThat(result.roundTrips() * 20).isEqualTo(result.heartbeats());
      long evalsha = delta(before, after, "evalsha");
      long hgetall = delta(before, after, "hgetall");
      long batches = hgetall / 10;
      assertThat(batches).isGreaterThanOrEqualTo(result.roundTrips());
      assertThat(hgetall).isEqualTo(10 * batches);
      // Per batch: 3 write_history calls (8, 8 and 4 users), each also appending one entry to a
      // recovery log (a single server: in the same call), and 10 first_today checks.
      assertThat(delta(before, after, "xadd")).isEqualTo(3 * batches);
      assertThat(delta(before, after, "mset")).isZero();
      assertThat(evalsha).isEqualTo((3 + 10) * batches);
      // ... and each user's first check of the day leaves its event in a first-today outbox (a ZADD).
      long outboxed = 0;
      for (String outbox : info.sync().keys("plbench*ft:{ft*}:outbox")) {
        outboxed += info.sync().zcard(outbox);
      }
      assertThat(outboxed).isBetween(1L, 50L);
      // The other ZADDs are the heartbeats' timeline entries: no recovery mark per heartbeat any more.
      assertThat(delta(before, after, "zadd")).isEqualTo(20 * batches + outboxed);
      // Every user was given a registry entry of one node first, as a gateway holding it has; then
      // write_history stored each heartbeat's record (HSETs inside a script count too).
      assertThat(delta(before, after, "hset")).isEqualTo(50 + 20 * batches);
    } finally {
      client.shutdown();
    }
  }

  private static long delta(Map<String, Long> before, Map<String, Long> after, String command) {
    return after.getOrDefault(command, 0L) - before.getOrDefault(command, 0L);
  }

  /** {@code cmdstat_<name>:calls=N,...} lines of INFO commandstats. */
  private static Map<String, Long> calls(String info) {
    Map<String, Long> calls = new HashMap<>();
    for (String line : info.split("\\r?\\n")) {
      if (line.startsWith("cmdstat_")) {
        String name = line.substring("cmdstat_".length(), line.indexOf(':'));
        String n = line.substring(line.indexOf("calls=") + "calls=".length());
        calls.put(name, Long.parseLong(n.substring(0, n.indexOf(','))));
      }
    }
    return calls;
  }
}
