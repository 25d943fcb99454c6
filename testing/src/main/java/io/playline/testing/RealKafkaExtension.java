package io.playline.testing;

import io.playline.embedded.EmbeddedKafka;
import io.playline.embedded.TestWorkDirs;
import io.playline.time.Time;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Resolves {@link KafkaNamespace} parameters: topics and consumer groups of its own per test, on
 * one real Kafka server per test JVM.
 *
 * <p>Use with {@code @ExtendWith(RealKafkaExtension.class)}. The server starts lazily, on the
 * first test that asks for a namespace, is shared by every test class in the JVM and stops when
 * the JVM's test run ends (it lives in the root extension context's store, which closes it).
 * Every parameter resolved for one test (in {@code @BeforeEach}, the test method and
 * {@code @AfterEach}) is the same namespace. Thread-safe.
 */
public final class RealKafkaExtension implements ParameterResolver {

  private static final Logger log = LoggerFactory.getLogger(RealKafkaExtension.class);
  private static final ExtensionContext.Namespace STORE =
      ExtensionContext.Namespace.create(RealKafkaExtension.class);

  @Override
  public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
    return parameterContext.getParameter().getType() == KafkaNamespace.class;
  }

  @Override
  public KafkaNamespace resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
    SharedKafka kafka = shared(extensionContext);
    return extensionContext.getStore(STORE).getOrComputeIfAbsent(
        extensionContext.getUniqueId(),
        id -> new KafkaNamespace(kafka.server(), kafka.admin(), UniqueIds.next()),
        KafkaNamespace.class);
  }

  private static SharedKafka shared(ExtensionContext extensionContext) {
    return extensionContext.getRoot().getStore(STORE).getOrComputeIfAbsent(
        SharedKafka.class, type -> start(), SharedKafka.class);
  }

  private static SharedKafka start() {
    long startNanos = Time.SYSTEM.nanoTime();
    EmbeddedKafka server;
    try {
      server = EmbeddedKafka.start(new EmbeddedKafka.Options(TestWorkDirs.freshDir("kafka"), 0));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot start the real Kafka for tests", e);
    }
    Admin admin;
    try {
      admin = Admin.create(Map.of(
          AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, server.bootstrapServers(),
          AdminClientConfig.CLIENT_ID_CONFIG, "playline-test-admin"));
    } catch (RuntimeException e) {
      server.close();
      throw e;
    }
    log.info("Real Kafka for this test JVM is up in {} ms: {}",
        TimeUnit.NANOSECONDS.toMillis(Time.SYSTEM.nanoTime() - startNanos), server.bootstrapServers());
    return new SharedKafka(server, admin);
  }
}
