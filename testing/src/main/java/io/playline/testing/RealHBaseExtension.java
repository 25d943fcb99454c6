package io.playline.testing;

import io.playline.embedded.EmbeddedHBase;
import io.playline.embedded.TestWorkDirs;
import io.playline.time.Time;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Resolves {@link HBaseNamespace} parameters: an HBase namespace of its own per test, on one real
 * HBase server per test JVM.
 *
 * <p>Use with {@code @ExtendWith(RealHBaseExtension.class)}. The server starts lazily, on the
 * first test that asks for a namespace (about 10 s), is shared by every test class in the JVM and
 * stops when the JVM's test run ends (it lives in the root extension context's store, which closes
 * it). If it fails to start, every later test fails at once with that cause instead of trying
 * again. Every parameter resolved for one test (in {@code @BeforeEach}, the test method and
 * {@code @AfterEach}) is the same namespace. Thread-safe.
 */
public final class RealHBaseExtension implements ParameterResolver {

  private static final Logger log = LoggerFactory.getLogger(RealHBaseExtension.class);
  private static final ExtensionContext.Namespace STORE =
      ExtensionContext.Namespace.create(RealHBaseExtension.class);

  /** What the root store holds when the server could not start. */
  private record StartFailure(RuntimeException cause) {}

  @Override
  public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
    return parameterContext.getParameter().getType() == HBaseNamespace.class;
  }

  @Override
  public HBaseNamespace resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
    SharedHBase hbase = shared(extensionContext);
    return extensionContext.getStore(STORE).getOrComputeIfAbsent(
        extensionContext.getUniqueId(),
        id -> new HBaseNamespace(hbase, createNamespace(hbase.connection(), "t" + UniqueIds.next())),
        HBaseNamespace.class);
  }

  private static SharedHBase shared(ExtensionContext extensionContext) {
    Object value = extensionContext.getRoot().getStore(STORE)
        .getOrComputeIfAbsent(SharedHBase.class, type -> startOrFailure());
    if (value instanceof StartFailure failure) {
      throw new IllegalStateException(
          "The real HBase for this test JVM failed to start earlier", failure.cause());
    }
    return (SharedHBase) value;
  }

  private static Object startOrFailure() {
    try {
      return start();
    } catch (RuntimeException e) {
      log.error("The real HBase for this test JVM did not start", e);
      return new StartFailure(e);
    }
  }

  private static SharedHBase start() {
    long startNanos = Time.SYSTEM.nanoTime();
    EmbeddedHBase server;
    try {
      server = EmbeddedHBase.start(new EmbeddedHBase.Options(TestWorkDirs.freshDir("hbase"), 0));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot start the real HBase for tests", e);
    }
    Connection connection;
    try {
      connection = ConnectionFactory.createConnection(server.clientConfiguration());
    } catch (IOException | RuntimeException e) {
      server.close();
      throw new IllegalStateException("Cannot connect to the real HBase for tests: " + server, e);
    }
    log.info("Real HBase for this test JVM is up in {} ms: ZooKeeper {}:{}",
        TimeUnit.NANOSECONDS.toMillis(Time.SYSTEM.nanoTime() - startNanos), server.zookeeperQuorum(),
        server.zookeeperPort());
    return new SharedHBase(server, connection);
  }

  private static String createNamespace(Connection connection, String namespace) {
    try (Admin admin = connection.getAdmin()) {
      admin.createNamespace(NamespaceDescriptor.create(namespace).build());
      return namespace;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot create HBase namespace " + namespace, e);
    }
  }
}
