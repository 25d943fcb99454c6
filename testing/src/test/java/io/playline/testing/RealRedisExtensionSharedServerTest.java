package io.playline.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.playline.embedded.EmbeddedRedis;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Two test classes get the same Redis server: two nested classes (each its own class context) record
 * what they saw and the server is compared once both have run, whatever order the classes run in.
 * Also checked against {@link RealRedisExtensionTest}, whichever of the files runs first.
 */
@ExtendWith(RealRedisExtension.class)
class RealRedisExtensionSharedServerTest {

  private static final Map<String, EmbeddedRedis> SERVER_BY_CLASS = new ConcurrentHashMap<>();

  private static void record(String testClass, RedisNamespace namespace) {
    SERVER_BY_CLASS.put(testClass, namespace.server());
    RealRedisExtensionTest.assertSharedServer(namespace);
    RealRedisExtensionTest.withRedis(namespace, redis -> assertThat(redis.ping()).isEqualTo("PONG"));
  }

  @AfterAll
  static void bothClassesSawOneServer() {
    assertThat(SERVER_BY_CLASS).containsOnlyKeys("one", "another");
    assertThat(SERVER_BY_CLASS.get("one")).isSameAs(SERVER_BY_CLASS.get("another"));
  }

  @Nested
  class OneTestClass {
    @Test
    void seesTheServer(RedisNamespace namespace) {
      record("one", namespace);
    }
  }

  @Nested
  class AnotherTestClass {
    @Test
    void seesTheSameServer(RedisNamespace namespace) {
      record("another", namespace);
    }
  }
}
