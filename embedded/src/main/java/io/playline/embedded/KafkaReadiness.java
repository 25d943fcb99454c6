package io.playline.embedded;

import io.playline.time.Time;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.common.Node;
import org.jspecify.annotations.Nullable;

/**
 * Waits until a Kafka cluster reports the brokers a caller needs, asking with an admin client.
 *
 * <p>Stateless; each call uses its own short-lived admin client.
 */
final class KafkaReadiness {

  private static final Duration POLL_INTERVAL = Duration.ofMillis(200);

  private KafkaReadiness() {}

  /**
   * Returns once the ids of the brokers the cluster at {@code bootstrapServers} reports satisfy
   * {@code ready}, running {@code stillStarting} before each probe.
   *
   * @throws IOException when {@code deadlineNanos} (a {@link Time#nanoTime()} of {@link Time#SYSTEM}) passes,
   *     naming the brokers last seen and the last failure; or what {@code stillStarting} throws
   */
  static void await(String bootstrapServers, Predicate<Set<Integer>> ready, long deadlineNanos,
      StillStarting stillStarting) throws IOException {
    try (Admin admin = Admin.create(Map.of(
        AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
        AdminClientConfig.CLIENT_ID_CONFIG, "playline-embedded-readiness",
        AdminClientConfig.RECONNECT_BACKOFF_MS_CONFIG, 200,
        AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 1_000,
        AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000,
        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 5_000))) {
      @Nullable Exception lastFailure = null;
      Set<Integer> seen = Set.of();
      while (Time.SYSTEM.nanoTime() - deadlineNanos < 0) {
        stillStarting.check();
        try {
          // Short probes, so that stillStarting runs every second or two.
          seen = admin.describeCluster(new DescribeClusterOptions().timeoutMs(1_000)).nodes()
              .get(2, TimeUnit.SECONDS).stream().map(Node::id).collect(Collectors.toSet());
          if (ready.test(seen)) {
            return;
          }
        } catch (ExecutionException | TimeoutException e) {
          lastFailure = e;
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException("interrupted while waiting for Kafka");
        }
        Polling.pause(POLL_INTERVAL, "Kafka");
      }
      throw new IOException("Kafka on " + bootstrapServers + " was not ready (brokers seen: "
          + seen + ", last failure: " + lastFailure + ")", lastFailure);
    }
  }
}
