package io.playline.standalone;

import io.playline.core.config.ConfigSource;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * What standalone mode starts: where data lives, and for each backend either an embedded real
 * server (the default) or the address of an external one that replaces it ({@code external*}
 * empty: embedded). Each component is read from one setting of {@link StandaloneSettings} (see
 * {@link #from}); their keys, defaults and ranges are in docs/configuration.md.
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
