package io.playline.api;

import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.playline.api.config.ApiConfig;
import io.playline.core.config.ConfigSource;
import io.playline.core.config.HBaseLayout;
import io.playline.node.Node;
import io.playline.node.NodeConfig;
import io.playline.testing.HBaseNamespace;
import io.playline.testing.KafkaNamespace;
import io.playline.testing.RedisNamespace;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * A node that serves only the internal API, as the api role runs it (settings read through {@link
 * NodeConfig#from} and {@link ApiConfig#from}; no progress push, which is the player edge's), on
 * real Redis, Kafka and HBase (its history table created as the job would);
 * every port on a free one.
 */
record TestApi(Node node, ApiServer api) implements AutoCloseable {
  static final String API_SECRET = "api-server-test-secret-0123456789-abcdef";
  /** The deployment's player-token key, which must not open the API. */
  static final String PLAYER_SECRET = "test-secret-test-secret-test-secret!";

  /** Starts with {@code settings} over the test defaults. */
  static TestApi start(RedisNamespace redis, KafkaNamespace kafka, HBaseNamespace hbase, Map<String, String> settings) {
    return start(redis, kafka, hbase, settings, false);
  }

  /** As {@link #start}, attached as on a node that also serves players ({@link ApiServer#attachBesidePlayers}). */
  static TestApi startBesidePlayers(RedisNamespace redis, KafkaNamespace kafka, HBaseNamespace hbase,
      Map<String, String> settings) {
    return start(redis, kafka, hbase, settings, true);
  }

  private static TestApi start(RedisNamespace redis, KafkaNamespace kafka, HBaseNamespace hbase,
      Map<String, String> settings, boolean besidePlayers) {
    Map<String, String> values = new HashMap<>(Map.of(
        "bind.host", "127.0.0.1", "api.port", "0", "admin.port", "0", "node.id", "api-test",
        "redis.key.prefix", redis.keyPrefix(), "kafka.topic.history", kafka.topic("history"),
        "kafka.topic.first.today", kafka.topic("first-today"), "hbase.table", hbase.table("history").getNameAsString(),
        "kafka.topic.partitions", Integer.toString(KafkaNamespace.PARTITIONS)));
    values.putAll(settings);
    ConfigSource source = ConfigSource.empty().with(values);
    HBaseLayout layout = HBaseLayout.from(source);
    try (Admin admin = hbase.connection().getAdmin()) {
      if (!admin.tableExists(layout.table())) { // the job creates it in a deployment
        admin.createTable(TableDescriptorBuilder.newBuilder(layout.table())
            .setColumnFamily(ColumnFamilyDescriptorBuilder.of(layout.family())).build());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Node node = Node.builder(NodeConfig.from(source))
        .core(Node.historyCore(source, redis.redisUri(), kafka.bootstrapServers(), "api-test", hbase.configuration()))
        .start();
    try {
      ApiConfig access = ApiConfig.from(source, API_SECRET, PLAYER_SECRET);
      return new TestApi(node, besidePlayers ? ApiServer.attachBesidePlayers(node, access)
          : ApiServer.attach(node, access));
    } catch (RuntimeException e) {
      node.close();
      throw e;
    }
  }

  /**
   * A new plaintext channel (its own TCP connection) to the API's gRPC port that sends a fresh
   * service token with every call; the caller shuts it down.
   */
  ManagedChannel channel() {
    Metadata headers = new Metadata();
    headers.put(ServiceAuthInterceptor.AUTHORIZATION, bearer());
    return NettyChannelBuilder.forAddress("127.0.0.1", api.address().getPort()).usePlaintext()
        .intercept(MetadataUtils.newAttachHeadersInterceptor(headers)).build();
  }

  /** An {@code authorization} value with a fresh service token. */
  static String bearer() {
    return "Bearer " + ServiceTokens.mint(API_SECRET, "api-test", Duration.ofMinutes(5), Instant.now());
  }

  @Override
  public void close() {
    node.close();
  }
}
