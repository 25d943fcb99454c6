package io.playline.roles;

import static io.playline.core.config.Setting.derived;

import io.playline.core.config.Setting;
import java.util.Optional;
import org.apache.hadoop.hbase.HConstants;

/**
 * The keys only the roles' process reads: where it keeps its files, the backends a role talks to
 * (standalone replaces the unset ones with embedded servers) and the demo page's switch. Listed in
 * standalone's catalogue ({@code io.playline.standalone.StandaloneSettings}), beside the embedded
 * servers' keys.
 */
public final class RoleSettings {
  private static final String EMBEDDED_OR_REQUIRED = "embedded (standalone); required (roles)";

  public static final Setting<String> DATA_DIR = Setting.string("data.dir", "data",
      "standalone data (Redis AOF, Kafka logs, HBase root, `endpoints.json`) and every node's log files, relative "
          + "to the working directory; the operator commands (`play`, `status`, `history`) find a running "
          + "standalone by its `endpoints.json` here");
  public static final Setting<Optional<String>> LOG_DIR = Setting.optional("log.dir", "`data.dir`/logs",
      "where a node (standalone, gateway, api, job) writes `playline.log` and its rolled files, as "
          + "`config/logback.xml` says; the operator commands write no log file");

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
  public static final Setting<Boolean> DEMO_ENABLED = Setting.bool("demo.enabled",
      derived("true (standalone), false (gateway role)"), "serve the demo web player on the WebSocket port "
          + "(`/demo/`); it hands out player tokens only while they are signed with the development secret");

  private RoleSettings() {}
}
