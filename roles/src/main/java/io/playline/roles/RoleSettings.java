package io.playline.roles;

import static io.playline.core.config.Setting.derived;

import io.playline.api.config.ApiSettings;
import io.playline.core.config.CoreSettings;
import io.playline.core.config.FirstTodaySettings;
import io.playline.core.config.KafkaSettings;
import io.playline.core.config.QuerySettings;
import io.playline.core.config.Setting;
import io.playline.core.config.SettingsCatalogue;
import io.playline.core.config.UnknownKeys;
import io.playline.core.config.WriteBackSettings;
import io.playline.gateway.config.AuthSettings;
import io.playline.gateway.config.GatewaySettings;
import io.playline.gateway.config.LimitSettings;
import io.playline.job.config.JobSettings;
import io.playline.node.RequestSettings;
import io.playline.node.edge.EdgeSettings;
import io.playline.node.push.PushSettings;
import io.playline.node.settings.NodeSettings;
import io.playline.node.write.BatchSettings;
import java.util.List;
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

  /** The keys above: where a role keeps its data and logs, its backends, the demo. */
  public static final SettingsCatalogue CATALOGUE = new SettingsCatalogue("Roles and backends", List.of(
      DATA_DIR, LOG_DIR, REDIS_URI, KAFKA_BOOTSTRAP_SERVERS, HBASE_ZOOKEEPER_QUORUM, HBASE_ZOOKEEPER_PORT,
      HBASE_ZOOKEEPER_ZNODE_PARENT, DEMO_ENABLED));

  private RoleSettings() {}

  /**
   * Every catalogue a role reads keys from; a key in none of them is refused at start ({@link
   * io.playline.roles.cli.ConfigOptions#checkKeysAgainst}). Standalone adds its own (embedded servers,
   * the stop timeout).
   */
  public static List<SettingsCatalogue> catalogues() {
    return List.of(CATALOGUE, NodeSettings.CATALOGUE, EdgeSettings.CATALOGUE, RequestSettings.CATALOGUE,
        GatewaySettings.CATALOGUE, AuthSettings.CATALOGUE, LimitSettings.CATALOGUE, BatchSettings.CATALOGUE,
        PushSettings.CATALOGUE, ApiSettings.CATALOGUE, CoreSettings.CATALOGUE, WriteBackSettings.CATALOGUE,
        FirstTodaySettings.CATALOGUE, KafkaSettings.CATALOGUE, QuerySettings.CATALOGUE, JobSettings.CATALOGUE,
        UnknownKeys.CATALOGUE);
  }
}
