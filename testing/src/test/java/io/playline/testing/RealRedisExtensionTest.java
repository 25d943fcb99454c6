package io.playline.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.playline.embedded.EmbeddedRedis;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(RealRedisExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RealRedisExtensionTest {

  /** The one server every test in this JVM must see, recorded by whichever test runs first. */
  private static final AtomicReference<EmbeddedRedis> SERVER = new AtomicReference<>();
  private static final Map<String, String> PREFIX_BY_TEST = new ConcurrentHashMap<>();

  private RedisNamespace fromBeforeEach;

  @BeforeEach
  void rememberNamespace(RedisNamespace namespace) {
    fromBeforeEach = namespace;
  }

  @Test
  @Order(1)
  void firstTestRoundTripsThroughItsOwnPrefix(RedisNamespace namespace) {
    PREFIX_BY_TEST.put("first", namespace.keyPrefix());
    assertSharedServer(namespace);
    assertThat(namespace).isSameAs(fromBeforeEach);
    assertThat(namespace.keyPrefix()).matches("t[0-9a-f]+:");
    assertThat(namespace.key("player:1")).isEqualTo(namespace.keyPrefix() + "player:1");

    withRedis(namespace, redis -> {
      redis.set(namespace.key("player:1"), "first");
      assertThat(redis.get(namespace.key("player:1"))).isEqualTo("first");
    });
  }

  @Test
  @Order(2)
  void secondTestSeesNoneOfTheFirstTestsKeys(RedisNamespace namespace) {
    PREFIX_BY_TEST.put("second", namespace.keyPrefix());
    assertSharedServer(namespace);
    assertThat(namespace.keyPrefix()).isNotEqualTo(PREFIX_BY_TEST.get("first"));

    withRedis(namespace, redis -> {
      assertThat(redis.get(namespace.key("player:1"))).isNull();
      redis.set(namespace.key("player:1"), "second");
      assertThat(keysUnder(redis, namespace.keyPrefix())).containsExactly(namespace.key("player:1"));
      // The first test's value is still there, under its own prefix, on the same server.
      assertThat(redis.get(PREFIX_BY_TEST.get("first") + "player:1")).isEqualTo("first");
    });
  }

  @AfterAll
  static void everyTestHadItsOwnPrefix() {
    assertThat(PREFIX_BY_TEST).containsOnlyKeys("first", "second");
    assertThat(PREFIX_BY_TEST.values()).doesNotHaveDuplicates();
  }

  /** Asserts that every test in this JVM, in any test class, gets the same server. */
  static void assertSharedServer(RedisNamespace namespace) {
    SERVER.compareAndSet(null, namespace.server());
    assertThat(namespace.server()).isSameAs(SERVER.get());
    assertThat(namespace.redisUri()).isEqualTo("redis://127.0.0.1:" + namespace.server().port());
  }

  private static List<String> keysUnder(RedisCommands<String, String> redis, String prefix) {
    return ScanIterator.scan(redis, ScanArgs.Builder.matches(prefix + "*")).stream().toList();
  }

  static void withRedis(RedisNamespace namespace, Consumer<RedisCommands<String, String>> body) {
    RedisClient client = RedisClient.create(namespace.redisUri());
    try (StatefulRedisConnection<String, String> connection = client.connect()) {
      body.accept(connection.sync());
    } finally {
      client.shutdown();
    }
  }
}
