package io.playline.api;

import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.playline.api.config.ApiConfig;
import io.playline.core.config.ConfigSource;
import io.playline.node.Node;
import io.playline.node.NodeConfig;
import io.playline.testing.HBaseNamespace;
import io.playline.testing.KafkaNamespace;
import io.playline.testing.RealHBaseExtension;
import io.playline.testing.RealKafkaExtension;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import io.playline.time.Time;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The internal API on a node that accepts no players, as the api role runs it, on real Redis, Kafka
 * and HBase: started before each test with a backend's channel ({@link #channel}, a service token)
 * and one without credentials ({@link #bare}); a test may restart it with other settings.
 */
@ExtendWith({RealRedisExtension.class, RealKafkaExtension.class, RealHBaseExtension.class})
abstract class AbstractApiNodeTest {
  static final String API_SECRET = TestApi.API_SECRET;
  Node node;
  ApiServer api;
  ManagedChannel channel;
  ManagedChannel bare;

  @BeforeEach
  void start(RedisNamespace redis, KafkaNamespace kafka, HBaseNamespace hbase) {
    api = apiNode(redis, kafka, hbase, new ApiConfig(API_SECRET, "127.0.0.1"));
    channel = channel(bearer());
    bare = NettyChannelBuilder.forAddress("127.0.0.1", api.address().getPort()).usePlaintext().build();
  }

  @AfterEach
  void stop() throws InterruptedException {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    bare.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    node.close();
  }

  /** Starts {@link #node} (it accepts no players) and the internal API on it with {@code access}. */
  ApiServer apiNode(RedisNamespace redis, KafkaNamespace kafka, HBaseNamespace hbase, ApiConfig access) {
    return apiNode(redis, kafka, hbase, access, Map.of());
  }

  /** {@link #apiNode(RedisNamespace, KafkaNamespace, HBaseNamespace, ApiConfig)} with {@code settings} added. */
  ApiServer apiNode(RedisNamespace redis, KafkaNamespace kafka, HBaseNamespace hbase, ApiConfig access,
      Map<String, String> settings) {
    return apiNode(redis, kafka, hbase, access, settings, Time.SYSTEM);
  }

  /** As above, the node reading the time and scheduling by {@code time}. */
  ApiServer apiNode(RedisNamespace redis, KafkaNamespace kafka, HBaseNamespace hbase, ApiConfig access,
      Map<String, String> settings, Time time) {
    ConfigSource source = source(redis, kafka, hbase).with(settings);
    node = Node.builder(NodeConfig.from(source)).time(time)
        .core(Node.historyCore(source, redis.redisUri(), kafka.bootstrapServers(), "api-test", hbase.configuration()))
        .start();
    return ApiServer.attach(node, access);
  }

  static ConfigSource source(RedisNamespace redis, KafkaNamespace kafka, HBaseNamespace hbase) {
    return ConfigSource.empty().with(Map.of(
        "bind.host", "127.0.0.1", "api.port", "0", "admin.port", "0", "node.id", "api-test",
        "redis.key.prefix", redis.keyPrefix(), "kafka.topic.history", kafka.topic("history"),
        "kafka.topic.first.today", kafka.topic("first-today"), "hbase.table", hbase.table("history").getNameAsString(),
        "kafka.topic.partitions", Integer.toString(KafkaNamespace.PARTITIONS)));
  }

  /** A valid service token for 5 minutes, as a backend sends it. */
  static String bearer() {
    return "Bearer " + ServiceTokens.mint(API_SECRET, "api-server-test", Duration.ofMinutes(5), Instant.now());
  }

  /** A channel whose calls carry {@code authorization} (null: none). */
  ManagedChannel channel(String authorization) {
    NettyChannelBuilder b = NettyChannelBuilder.forAddress("127.0.0.1", api.address().getPort()).usePlaintext();
    if (authorization != null) {
      Metadata headers = new Metadata();
      headers.put(ServiceAuthInterceptor.AUTHORIZATION, authorization);
      b.intercept(MetadataUtils.newAttachHeadersInterceptor(headers));
    }
    return b.build();
  }
}
