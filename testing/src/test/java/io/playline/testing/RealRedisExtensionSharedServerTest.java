package io.playline.testing;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A second test class: it must get the same Redis server as {@link RealRedisExtensionTest}. */
@ExtendWith(RealRedisExtension.class)
class RealRedisExtensionSharedServerTest {

  @Test
  void anotherTestClassSharesTheSameServer(RedisNamespace namespace) {
    RealRedisExtensionTest.assertSharedServer(namespace);
    RealRedisExtensionTest.withRedis(namespace, redis -> assertThat(redis.ping()).isEqualTo("PONG"));
  }
}
