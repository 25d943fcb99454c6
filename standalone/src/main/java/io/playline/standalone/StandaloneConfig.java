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
        Path.of(c.string("data.dir", "data")).toAbsolutePath().normalize(),
        c.raw("redis.uri"),
        c.raw("kafka.bootstrap.servers"),
        c.raw("hbase.zookeeper.quorum"),
        c.port("hbase.zookeeper.port", 2181, false),
        c.port("embedded.redis.port", 0, true),
        c.port("embedded.kafka.port", 0, true),
        c.port("embedded.hbase.zookeeper.port", 0, true),
        c.duration("shutdown.timeout", Duration.ofSeconds(60), Duration.ofSeconds(5), Duration.ofMinutes(10)));
  }
}
