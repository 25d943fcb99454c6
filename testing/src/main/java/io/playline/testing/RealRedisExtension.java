package io.playline.testing;

import io.playline.embedded.EmbeddedRedis;
import io.playline.embedded.TestWorkDirs;
import io.playline.time.Time;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Resolves {@link RedisNamespace} parameters: a key prefix of its own per test, on one real
 * Redis server per test JVM.
 *
 * <p>Use with {@code @ExtendWith(RealRedisExtension.class)}. The server starts lazily, on the
 * first test that asks for a namespace, is shared by every test class in the JVM and stops when
 * the JVM's test run ends (it lives in the root extension context's store, which closes it).
 * Every parameter resolved for one test (in {@code @BeforeEach}, the test method and
 * {@code @AfterEach}) is the same namespace. Thread-safe.
 */
public final class RealRedisExtension implements ParameterResolver {

  private static final Logger log = LoggerFactory.getLogger(RealRedisExtension.class);
  private static final ExtensionContext.Namespace STORE =
      ExtensionContext.Namespace.create(RealRedisExtension.class);

  @Override
  public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
    return parameterContext.getParameter().getType() == RedisNamespace.class;
  }

  @Override
  public RedisNamespace resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
    EmbeddedRedis server = server(extensionContext);
    return extensionContext.getStore(STORE).getOrComputeIfAbsent(
        extensionContext.getUniqueId(),
        id -> new RedisNamespace(server, "t" + UniqueIds.next() + ":"),
        RedisNamespace.class);
  }

  /** Returns the test JVM's Redis server, starting it on first use. */
  static EmbeddedRedis server(ExtensionContext extensionContext) {
    return extensionContext.getRoot().getStore(STORE).getOrComputeIfAbsent(
        EmbeddedRedis.class, type -> start(), EmbeddedRedis.class);
  }

  private static EmbeddedRedis start() {
    long startNanos = Time.SYSTEM.nanoTime();
    try {
      EmbeddedRedis redis = EmbeddedRedis.start(
          new EmbeddedRedis.Options(TestWorkDirs.freshDir("redis"), 0, false));
      log.info("Real Redis for this test JVM is up in {} ms: {} ({})",
          TimeUnit.NANOSECONDS.toMillis(Time.SYSTEM.nanoTime() - startNanos), redis.redisUri(), redis.binary());
      return redis;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot start the real Redis for tests", e);
    }
  }
}
