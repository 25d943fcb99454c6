package io.playline.standalone;

import static io.playline.core.config.Setting.derived;

import io.playline.core.config.Setting;
import io.playline.core.config.SettingsCatalogue;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.apache.hadoop.hbase.HConstants;

/**
 * The process's own keys: where standalone keeps its data, the backends a role talks to (or
 * standalone replaces with embedded servers), and how long a stop may take.
 */
public final class StandaloneSettings {
  private static final String EMBEDDED_OR_REQUIRED = "embedded (standalone); required (roles)";

  public static final Setting<String> DATA_DIR = Setting.string("data.dir", "data",
      "standalone data (Redis AOF, Kafka logs, HBase root, logs), relative to the working directory");
  public static final Setting<Optional<String>> REDIS_URI = Setting.optional("redis.uri", EMBEDDED_OR_REQUIRED,
      "an external Redis (`redis://host:6379`) instead of the embedded one");
  public static final Setting<Optional<String>> KAFKA_BOOTSTRAP_SERVERS = Setting.optional("kafka.bootstrap.servers",
      EMBEDDED_OR_REQUIRED, "an external Kafka (`host:9092,host2:9092`) instead of the embedded one");
  public static final Setting<Optional<String>> HBASE_ZOOKEEPER_QUORUM = Setting.optional("hbase.zookeeper.quorum",
      EMBEDDED_OR_REQUIRED, "an external HBase (its ZooKeeper hosts, `zk1,zk2,zk3`) instead of the embedded one");
  public static final Setting<Integer> HBASE_ZOOKEEPER_PORT = Setting.port("hbase.zookeeper.port", 2181, false,
      "the external HBase's ZooKeeper client port");
  public static final Setting<String> HBASE_ZOOKEEPER_ZNODE_PARENT = Setting.string("hbase.zookeeper.znode.parent",
      HConstants.DEFAULT_ZOOKEEPER_ZNODE_PARENT, "the external HBase's root znode");
  public static final Setting<Integer> EMBEDDED_REDIS_PORT = Setting.port("embedded.redis.port", 0, true,
      "port of the embedded Redis");
  public static final Setting<Integer> EMBEDDED_KAFKA_PORT = Setting.port("embedded.kafka.port", 0, true,
      "port of the embedded Kafka");
  public static final Setting<Integer> EMBEDDED_HBASE_ZOOKEEPER_PORT = Setting.port("embedded.hbase.zookeeper.port", 0,
      true, "ZooKeeper port of the embedded HBase");
  public static final Setting<Duration> SHUTDOWN_TIMEOUT = Setting.duration("shutdown.timeout", Duration.ofSeconds(60),
      Duration.ofSeconds(5), Duration.ofMinutes(10), "past it the process halts, even if a part hangs");
  public static final Setting<Boolean> DEMO_ENABLED = Setting.bool("demo.enabled",
      derived("true (standalone), false (gateway role)"), "serve the demo web player on the WebSocket port "
          + "(`/demo/`); it hands out player tokens only while they are signed with the development secret");

  public static final SettingsCatalogue CATALOGUE = new SettingsCatalogue("Standalone and backends", List.of(
      DATA_DIR, REDIS_URI, KAFKA_BOOTSTRAP_SERVERS, HBASE_ZOOKEEPER_QUORUM, HBASE_ZOOKEEPER_PORT,
      HBASE_ZOOKEEPER_ZNODE_PARENT, EMBEDDED_REDIS_PORT, EMBEDDED_KAFKA_PORT, EMBEDDED_HBASE_ZOOKEEPER_PORT,
      SHUTDOWN_TIMEOUT, DEMO_ENABLED));

  private StandaloneSettings() {}
}
