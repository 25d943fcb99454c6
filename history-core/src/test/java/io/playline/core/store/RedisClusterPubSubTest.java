package io.playline.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.playline.core.config.ClusterTopologyConfig;
import io.playline.testing.RealRedisClusterExtension;
import io.playline.testing.RedisClusterNamespace;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Pub/sub in Cluster mode, as the gateway's node channels use it. */
@ExtendWith(RealRedisClusterExtension.class)
class RedisClusterPubSubTest {

  @Test
  void messagePublishedOnTheSharedConnectionReachesASubscriberOfTheCluster(RedisClusterNamespace ns) throws Exception {
    RedisConnections publisher = ClusterConnections.connect(ns, Duration.ofSeconds(10), ClusterTopologyConfig.defaults());
    RedisConnections subscriber = ClusterConnections.connect(ns, Duration.ofSeconds(10), ClusterTopologyConfig.defaults());
    try {
      List<String> received = new CopyOnWriteArrayList<>();
      StatefulRedisPubSubConnection<byte[], byte[]> subscription = subscriber.connectPubSub();
      subscription.addListener(new RedisPubSubAdapter<>() {
        @Override
        public void message(byte[] channel, byte[] message) {
          received.add(text(channel) + "=" + text(message));
        }
      });
      // Channels on several masters' slots (pub/sub in a cluster is broadcast over the bus).
      List<String> channels = List.of(ns.key("push:{node-a}"), ns.key("push:{node-b}"), ns.key("push:{node-c}"));
      for (String channel : channels) {
        subscription.async().subscribe(bytes(channel)).get(10, TimeUnit.SECONDS);
      }
      for (String channel : channels) {
        // Published until it arrives: a subscription Redis confirmed may reach the other nodes later.
        await(channel).atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
            .until(() -> {
              publisher.shared().publish(bytes(channel), bytes("hello")).get(5, TimeUnit.SECONDS);
              return received.contains(channel + "=hello");
            });
      }
      assertThat(received).allMatch(m -> m.endsWith("=hello"));
    } finally {
      subscriber.close();
      publisher.close();
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String text(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }
}
