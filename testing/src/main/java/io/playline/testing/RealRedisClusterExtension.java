package io.playline.testing;

import io.playline.embedded.EmbeddedRedisCluster;
import io.playline.embedded.TestWorkDirs;
import io.playline.time.Time;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Resolves {@link RedisClusterNamespace} parameters: a key prefix of its own per test, on one
 * real Redis Cluster per test JVM ({@value #MASTERS} masters with {@value #REPLICAS} replica
 * each, {@code cluster-node-timeout} {@value #NODE_TIMEOUT_MS} ms, so a killed master is failed
 * over within seconds).
 *
 * <p>Use with {@code @ExtendWith(RealRedisClusterExtension.class)}; only tests that ask for a
 * namespace pay for the cluster. It starts lazily, on the first such test, is shared by every test
 * class in the JVM and stops when the JVM's test run ends (it lives in the root extension
 * context's store, which closes it). Every parameter resolved for one test ({@code @BeforeEach},
 * the test method, {@code @AfterEach}) is the same namespace. Thread-safe.
 */
public final class RealRedisClusterExtension implements ParameterResolver {

  static final int MASTERS = 3;
  static final int REPLICAS = 1;
  static final long NODE_TIMEOUT_MS = 1500;

  private static final Logger log = LoggerFactory.getLogger(RealRedisClusterExtension.class);
  private static final ExtensionContext.Namespace STORE =
      ExtensionContext.Namespace.create(RealRedisClusterExtension.class);

  @Override
  public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
    return parameterContext.getParameter().getType() == RedisClusterNamespace.class;
  }

  @Override
  public RedisClusterNamespace resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
    EmbeddedRedisCluster cluster = cluster(extensionContext);
    return extensionContext.getStore(STORE).getOrComputeIfAbsent(
        extensionContext.getUniqueId(),
        id -> new RedisClusterNamespace(cluster, "t" + UniqueIds.next() + ":"),
        RedisClusterNamespace.class);
  }

  /** Returns the test JVM's Redis Cluster, starting it on first use. */
  static EmbeddedRedisCluster cluster(ExtensionContext extensionContext) {
    return extensionContext.getRoot().getStore(STORE).getOrComputeIfAbsent(
        EmbeddedRedisCluster.class, type -> start(), EmbeddedRedisCluster.class);
  }

  private static EmbeddedRedisCluster start() {
    long startNanos = Time.SYSTEM.nanoTime();
    try {
      EmbeddedRedisCluster cluster = EmbeddedRedisCluster.start(new EmbeddedRedisCluster.Options(
          TestWorkDirs.freshDir("redis-cluster"), MASTERS, REPLICAS, Duration.ofMillis(NODE_TIMEOUT_MS)));
      log.info("Real Redis Cluster for this test JVM is up in {} ms: {}",
          TimeUnit.NANOSECONDS.toMillis(Time.SYSTEM.nanoTime() - startNanos), cluster);
      return cluster;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot start the real Redis Cluster for tests", e);
    }
  }
}
