package io.playline.standalone;

import org.apache.hadoop.conf.Configuration;

/**
 * Where the backends are, embedded or external.
 *
 * @param redisUri Lettuce URI, e.g. {@code redis://127.0.0.1:6379}
 * @param kafkaBootstrapServers Kafka bootstrap servers
 * @param hbaseZookeeperQuorum HBase ZooKeeper quorum hosts
 * @param hbaseZookeeperPort HBase ZooKeeper client port
 * @param hbaseConfiguration a client configuration pointing at that HBase
 * @param embedded which of the three are embedded, by name
 */
record BackendEndpoints(
    String redisUri,
    String kafkaBootstrapServers,
    String hbaseZookeeperQuorum,
    int hbaseZookeeperPort,
    Configuration hbaseConfiguration,
    java.util.Set<String> embedded) {}
