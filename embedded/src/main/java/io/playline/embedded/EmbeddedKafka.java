package io.playline.embedded;

import io.playline.time.Time;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.common.Uuid;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real single-node Kafka KRaft server (broker and controller) running inside this JVM on
 * 127.0.0.1, stopped by {@link #close()}.
 *
 * <p>Its log directory is formatted on first start only, so a restart on the same work dir (on
 * any port) keeps topics, records and committed offsets. Thread-safe.
 */
public final class EmbeddedKafka implements EmbeddedServer {

  private static final Logger log = LoggerFactory.getLogger(EmbeddedKafka.class);
  private static final String HOST = "127.0.0.1";
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);
  private static final int START_ATTEMPTS_ON_FREE_PORT = 3;
  private static final String LOG_DIR = "kafka-logs";

  /**
   * How to start Kafka.
   *
   * @param workDir holds the broker's log directory ({@code workDir/kafka-logs})
   * @param port PLAINTEXT listener port on 127.0.0.1; 0 picks a free one. The controller
   *     listener always takes a free port.
   */
  public record Options(Path workDir, int port, @Nullable SaslSsl saslSsl) {
    public Options {
      Objects.requireNonNull(workDir, "workDir");
      if (port < 0 || port > 65_535) {
        throw new IllegalArgumentException("port: " + port + " (expected: 0..65535)");
      }
    }

    /** A server with its PLAINTEXT listener only. */
    public Options(Path workDir, int port) {
      this(workDir, port, null);
    }

    /** These options plus a SASL_SSL listener for clients on a free port. */
    public Options withSaslSsl(SaslSsl listener) {
      return new Options(workDir, port, Objects.requireNonNull(listener, "listener"));
    }
  }

  /**
   * A second client listener speaking SASL_SSL with the PLAIN mechanism, as a secured production
   * cluster does; brokers and the controller keep talking PLAINTEXT among themselves.
   *
   * @param certFile the server's certificate chain (PEM), naming 127.0.0.1
   * @param keyFile its unencrypted PKCS#8 private key (PEM)
   * @param user the one user the listener accepts
   * @param password that user's password
   */
  public record SaslSsl(Path certFile, Path keyFile, String user, String password) {
    public SaslSsl {
      Objects.requireNonNull(certFile, "certFile");
      Objects.requireNonNull(keyFile, "keyFile");
      Objects.requireNonNull(user, "user");
      Objects.requireNonNull(password, "password");
    }
  }

  private final KafkaRaftServer server;
  private final int port;
  private final int saslSslPort;
  private final AtomicBoolean closed = new AtomicBoolean();

  private EmbeddedKafka(KafkaRaftServer server, int port, int saslSslPort) {
    this.server = server;
    this.port = port;
    this.saslSslPort = saslSslPort;
  }

  /**
   * Formats the log directory if it is not formatted yet, starts the server and returns once an
   * admin client can describe the cluster.
   *
   * @throws IOException if the server cannot start or is not ready within 60 s
   */
  public static EmbeddedKafka start(Options options) throws IOException {
    long startNanos = Time.SYSTEM.nanoTime();
    Path logDir = options.workDir().toAbsolutePath().resolve(LOG_DIR);
    Files.createDirectories(logDir);
    boolean formatted = KafkaStorage.formatIfNeeded(
        logDir, KafkaServerProperties.NODE_ID, Uuid.randomUuid().toString());
    int attempts = options.port() == 0 ? START_ATTEMPTS_ON_FREE_PORT : 1;
    for (int attempt = 1; ; attempt++) {
      int[] ports = FreePorts.pick(3);
      int port = options.port() == 0 ? ports[0] : options.port();
      int controllerPort = ports[0] == port ? ports[1] : ports[0];
      int saslSslPort = options.saslSsl() == null ? 0 : ports[0] == port || ports[1] == port ? ports[2] : ports[1];
      try {
        EmbeddedKafka kafka = launch(logDir, port, controllerPort, options.saslSsl(), saslSslPort);
        log.info("Started kafka on {}:{} (controller port {}) in {} ms ({} log dir {})", HOST, port,
            controllerPort, TimeUnit.NANOSECONDS.toMillis(Time.SYSTEM.nanoTime() - startNanos),
            formatted ? "formatted new" : "reused", logDir);
        return kafka;
      } catch (IOException | RuntimeException e) {
        // A port picked a moment ago may have been taken since; pick again.
        if (attempt >= attempts || e instanceof InterruptedIOException) {
          throw e instanceof IOException io ? io : new IOException("Kafka failed to start: " + e, e);
        }
        log.warn("Kafka failed to start on ports {}/{}, retrying on other ports: {}", port,
            controllerPort, e.toString());
      }
    }
  }

  private static EmbeddedKafka launch(Path logDir, int port, int controllerPort, @Nullable SaslSsl saslSsl,
      int saslSslPort) throws IOException {
    Map<String, String> properties = KafkaServerProperties.of(logDir, port, controllerPort);
    if (saslSsl != null) {
      KafkaServerProperties.addSaslSslListener(properties, saslSslPort, Files.readString(saslSsl.certFile()),
          Files.readString(saslSsl.keyFile()), saslSsl.user(), saslSsl.password());
    }
    KafkaRaftServer server = new KafkaRaftServer(new KafkaConfig(properties, false),
        org.apache.kafka.common.utils.Time.SYSTEM);
    EmbeddedKafka kafka = new EmbeddedKafka(server, port, saslSslPort);
    try {
      server.startup();
      kafka.awaitReady();
      return kafka;
    } catch (IOException | RuntimeException e) {
      kafka.close();
      throw e;
    }
  }

  private void awaitReady() throws IOException {
    KafkaReadiness.await(bootstrapServers(), ids -> !ids.isEmpty(),
        Time.SYSTEM.nanoTime() + READY_TIMEOUT.toNanos(), StillStarting.ALWAYS);
  }

  @Override
  public String name() {
    return "kafka";
  }

  /** Returns {@code "127.0.0.1:PORT"}, the PLAINTEXT listener for clients. */
  public String bootstrapServers() {
    return HOST + ":" + port;
  }

  /**
   * Returns {@code "127.0.0.1:PORT"}, the SASL_SSL listener.
   *
   * @throws IllegalStateException if the server was started without one
   */
  public String saslSslBootstrapServers() {
    if (saslSslPort == 0) {
      throw new IllegalStateException("started without a SASL_SSL listener (Options.withSaslSsl)");
    }
    return HOST + ":" + saslSslPort;
  }

  /**
   * Shuts the server down and waits for it (at most 30 s; after that it is abandoned with a
   * warning). Idempotent.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    long startNanos = Time.SYSTEM.nanoTime();
    boolean stopped = BoundedStop.run("embedded-kafka-shutdown-" + port, () -> {
      try {
        server.shutdown();
        server.awaitShutdown();
      } catch (RuntimeException e) {
        log.warn("Kafka on {} failed to shut down cleanly", bootstrapServers(), e);
      }
    }, STOP_TIMEOUT);
    if (!stopped) {
      log.warn("Kafka on {} did not shut down within {} s; abandoning it", bootstrapServers(),
          STOP_TIMEOUT.toSeconds());
    } else {
      log.info("Stopped kafka on {} in {} ms", bootstrapServers(),
          TimeUnit.NANOSECONDS.toMillis(Time.SYSTEM.nanoTime() - startNanos));
    }
  }

  @Override
  public String toString() {
    return "EmbeddedKafka{" + bootstrapServers() + "}";
  }
}
