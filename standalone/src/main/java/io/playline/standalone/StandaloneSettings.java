package io.playline.standalone;

import io.playline.core.config.Setting;
import io.playline.core.config.SettingsCatalogue;
import io.playline.roles.RoleSettings;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The process's own keys: where standalone keeps its data, the backends a role talks to (or
 * standalone replaces with embedded servers; defined in {@link RoleSettings}), and how long a stop
 * may take.
 */
public final class StandaloneSettings {
  public static final Setting<String> DATA_DIR = RoleSettings.DATA_DIR;
  public static final Setting<Optional<String>> LOG_DIR = RoleSettings.LOG_DIR;
  public static final Setting<Optional<String>> REDIS_URI = RoleSettings.REDIS_URI;
  public static final Setting<Optional<String>> KAFKA_BOOTSTRAP_SERVERS = RoleSettings.KAFKA_BOOTSTRAP_SERVERS;
  public static final Setting<Optional<String>> HBASE_ZOOKEEPER_QUORUM = RoleSettings.HBASE_ZOOKEEPER_QUORUM;
  public static final Setting<Integer> HBASE_ZOOKEEPER_PORT = RoleSettings.HBASE_ZOOKEEPER_PORT;
  public static final Setting<String> HBASE_ZOOKEEPER_ZNODE_PARENT = RoleSettings.HBASE_ZOOKEEPER_ZNODE_PARENT;
  public static final Setting<Integer> EMBEDDED_REDIS_PORT = Setting.port("embedded.redis.port", 0, true,
      "port of the embedded Redis");
  public static final Setting<Integer> EMBEDDED_KAFKA_PORT = Setting.port("embedded.kafka.port", 0, true,
      "port of the embedded Kafka");
  public static final Setting<Integer> EMBEDDED_HBASE_ZOOKEEPER_PORT = Setting.port("embedded.hbase.zookeeper.port", 0,
      true, "ZooKeeper port of the embedded HBase");
  public static final Setting<Duration> SHUTDOWN_TIMEOUT = Setting.duration("shutdown.timeout", Duration.ofSeconds(60),
      Duration.ofSeconds(5), Duration.ofMinutes(10), "past it the process halts, even if a part hangs");
  public static final Setting<Boolean> DEMO_ENABLED = RoleSettings.DEMO_ENABLED;

  public static final SettingsCatalogue CATALOGUE = new SettingsCatalogue("Standalone and backends", List.of(
      DATA_DIR, LOG_DIR, REDIS_URI, KAFKA_BOOTSTRAP_SERVERS, HBASE_ZOOKEEPER_QUORUM, HBASE_ZOOKEEPER_PORT,
      HBASE_ZOOKEEPER_ZNODE_PARENT, EMBEDDED_REDIS_PORT, EMBEDDED_KAFKA_PORT, EMBEDDED_HBASE_ZOOKEEPER_PORT,
      SHUTDOWN_TIMEOUT, DEMO_ENABLED));

  private StandaloneSettings() {}
}
