package io.playline.testing;

import io.playline.embedded.EmbeddedRedis;
import java.util.Objects;

/**
 * One test's share of the test JVM's real Redis: every key the test touches starts with {@link
 * #keyPrefix()}, which no other test uses.
 *
 * <p>Isolation is by prefix only; the server is shared and never restarted, so a test must not
 * use commands that span the whole database ({@code FLUSHALL}, {@code FLUSHDB}, {@code KEYS *}).
 *
 * @param server the shared server
 * @param keyPrefix unique to this test, e.g. {@code "t3f09a2c17:"}
 */
public record RedisNamespace(EmbeddedRedis server, String keyPrefix) {

  public RedisNamespace {
    Objects.requireNonNull(server, "server");
    if (keyPrefix.isEmpty()) {
      throw new IllegalArgumentException("keyPrefix: empty (expected: a unique prefix)");
    }
  }

  /** Returns the server's URI, {@code "redis://127.0.0.1:PORT"}. */
  public String redisUri() {
    return server.redisUri();
  }

  /** Returns {@code keyPrefix() + suffix}: the same key for the same suffix within this test. */
  public String key(String suffix) {
    return keyPrefix + suffix;
  }
}
