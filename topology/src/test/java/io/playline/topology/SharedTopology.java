package io.playline.topology;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * The production topology the topology tests share, started once per test JVM by the first test
 * class that asks for it ({@link Resolver}): Redis Cluster 3+3, three KRaft brokers, HBase, two
 * jobs, two gateways and an api, every part a real process, and a client connection to its HBase.
 * {@link TopologyTest} (the flows) runs on it first, then {@link TopologyFaultsTest} (which kills
 * its parts) and closes it ({@code junit-platform.properties} orders the classes); it lives in the
 * root extension context's store, which closes it at the end of the run otherwise. Closing twice
 * is harmless.
 */
final class SharedTopology implements AutoCloseable {
  static final String SECRET = "topology-test-secret-topology-test!!";
  static final String API_SECRET = "topology-test-api-secret-topology-test!!";
  static final byte[] FAMILY = {'h'};
  static final Duration WAIT = Duration.ofSeconds(90);
  /** Each gateway's {@code writeback.max.pending}: changes that make the write-back flush (or fold them in) early. */
  static final int MAX_PENDING = 100;
  /** Each gateway's {@code writeback.max.pending.hard}: small, so an outage overflows it. */
  static final int PENDING_CAP = 300;
  /** Each gateway's {@code writeback.max.pending.tombstones}: past it deletes fail (retriable), marked for the sweep. */
  static final int TOMBSTONE_CAP = 100;
  private static final ExtensionContext.Namespace STORE = ExtensionContext.Namespace.create(SharedTopology.class);

  private final LocalTopology topology;
  private final Connection hbase;
  private boolean closed;

  private SharedTopology(LocalTopology topology, Connection hbase) {
    this.topology = topology;
    this.hbase = hbase;
  }

  LocalTopology topology() {
    return topology;
  }

  /** A client connection to the topology's HBase. */
  Connection hbase() {
    return hbase;
  }

  private static SharedTopology start() throws IOException {
    Path dir = Path.of("target", "topology-" + UUID.randomUUID()).toAbsolutePath();
    Files.createDirectories(dir);
    LocalTopology topology = LocalTopology.start(new LocalTopology.Options(dir, System.getProperty("java.class.path"),
        2, 1, 2, 3, 1, 3, SECRET, API_SECRET, Map.of("writeback.flush.interval", "2s", "recovery.interval", "2s",
            "drain.grace", "0s", "kafka.consumer.session.timeout.ms", "10000", "kafka.consumer.heartbeat.interval.ms", "2000",
            "writeback.max.pending", String.valueOf(MAX_PENDING),
            "writeback.max.pending.hard", String.valueOf(PENDING_CAP),
            "writeback.max.pending.tombstones", String.valueOf(TOMBSTONE_CAP),
            "first.today.outbox.age", "20s", "first.today.outbox.sweep.interval", "2s"),
        "-Xms64m -Xmx384m -XX:+UseParallelGC"));
    try {
      return new SharedTopology(topology, ConnectionFactory.createConnection(topology.hbase().clientConfiguration()));
    } catch (IOException | RuntimeException e) {
      topology.close();
      throw e;
    }
  }

  @Override
  public synchronized void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    try {
      hbase.close();
    } finally {
      topology.close();
    }
  }

  /** Resolves a {@link SharedTopology} parameter (of a {@code @BeforeAll} method): this test JVM's. */
  static final class Resolver implements ParameterResolver {
    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
      return parameter.getParameter().getType() == SharedTopology.class;
    }

    @Override
    public SharedTopology resolveParameter(ParameterContext parameter, ExtensionContext context) {
      return context.getRoot().getStore(STORE).getOrComputeIfAbsent(SharedTopology.class, type -> {
        try {
          return start();
        } catch (IOException e) {
          throw new UncheckedIOException("Cannot start the topology", e);
        }
      }, SharedTopology.class);
    }
  }
}
