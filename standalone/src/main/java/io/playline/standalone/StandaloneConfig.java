package io.playline.standalone;

import io.playline.core.config.ConfigSource;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * What standalone mode starts: where data lives, and for each backend either an embedded real
 * server (the default) or the address of an external one that replaces it.
 *
 * @param dataDir {@code data.dir} / {@code PLAYLINE_DATA_DIR}, default {@code ./data}
 * @param externalRedisUri {@code redis.uri}: an external Redis instead of the embedded one
 * @param externalKafka {@code kafka.bootstrap.servers}: an external Kafka instead of the embedded one
 * @param externalHBaseQuorum {@code hbase.zookeeper.quorum}: an external HBase instead of the embedded one
 * @param hbaseZookeeperPort {@code hbase.zookeeper.port} for the external HBase, default 2181
 * @param embeddedRedisPort {@code embedded.redis.port}, 0 = any free port
 * @param embeddedKafkaPort {@code embedded.kafka.port}, 0 = any free port
 * @param embeddedZookeeperPort {@code embedded.hbase.zookeeper.port}, 0 = any free port
 * @param shutdownTimeout {@code shutdown.timeout}: after this the process exits even if a part hangs
 */
record StandaloneConfig(
    Path dataDir,
    Optional<String> externalRedisUri,
    Optional<String> externalKafka,
    Optional<String> externalHBaseQuorum,
    int hbaseZookeeperPort,
    int embeddedRedisPort,
    int embeddedKafkaPort,
    int embeddedZookeeperPort,
    Duration shutdownTimeout) {

  static StandaloneConfig from(ConfigSource c) {
    return new StandaloneConfig(
        Path.of(StandaloneSettings.DATA_DIR.read(c)).toAbsolutePath().normalize(),
        StandaloneSettings.REDIS_URI.read(c),
        StandaloneSettings.KAFKA_BOOTSTRAP_SERVERS.read(c),
        StandaloneSettings.HBASE_ZOOKEEPER_QUORUM.read(c),
        StandaloneSettings.HBASE_ZOOKEEPER_PORT.read(c),
        StandaloneSettings.EMBEDDED_REDIS_PORT.read(c),
        StandaloneSettings.EMBEDDED_KAFKA_PORT.read(c),
        StandaloneSettings.EMBEDDED_HBASE_ZOOKEEPER_PORT.read(c),
        StandaloneSettings.SHUTDOWN_TIMEOUT.read(c));
  }
}
