package io.playline.embedded;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Builds the configuration of Kafka KRaft servers (broker and controller in one process) on
 * 127.0.0.1, sized for a development machine: a single node, or one node of a small cluster.
 * Stateless.
 */
final class KafkaServerProperties {

  static final int NODE_ID = 1;
  static final String CONTROLLER_LISTENER = "CONTROLLER";
  static final String HOST = "127.0.0.1";

  private KafkaServerProperties() {}

  /**
   * Returns the server properties for a broker listening on {@code port} and a controller on
   * {@code controllerPort}, keeping its logs in {@code logDir}.
   */
  static Map<String, String> of(Path logDir, int port, int controllerPort) {
    // Static voters (kraft.version 0), not a dynamic quorum: the voter's address is read from
    // this config on every start, so a restart on other ports keeps working.
    return node(NODE_ID, NODE_ID + "@" + HOST + ":" + controllerPort, 1, logDir, port,
        controllerPort);
  }

  /**
   * Returns the properties of node {@code nodeId} of a cluster whose every node is broker and
   * controller.
   *
   * @param voters {@code controller.quorum.voters}: {@code id@host:controllerPort,...}
   * @param replicas the replication factor of every topic, internal ones included; min ISR is 2
   *     when there are at least 2 replicas, so acks=all survives the loss of one
   */
  static Map<String, String> node(int nodeId, String voters, int replicas, Path logDir, int port,
      int controllerPort) {
    Map<String, String> p = new LinkedHashMap<>();
    p.put("process.roles", "broker,controller");
    p.put("node.id", Integer.toString(nodeId));
    p.put("controller.quorum.voters", voters);
    p.put("controller.listener.names", CONTROLLER_LISTENER);
    p.put("listeners", "PLAINTEXT://" + HOST + ":" + port + "," + CONTROLLER_LISTENER + "://" + HOST + ":" + controllerPort);
    p.put("advertised.listeners", "PLAINTEXT://" + HOST + ":" + port);
    p.put("inter.broker.listener.name", "PLAINTEXT");
    p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT," + CONTROLLER_LISTENER + ":PLAINTEXT");
    p.put("log.dirs", logDir.toString());

    // Internal topics need as many live brokers as their replication factor to come up, so on
    // one node every replication factor and min ISR is 1.
    String rf = Integer.toString(replicas);
    String minIsr = Integer.toString(Math.min(2, replicas));
    p.put("default.replication.factor", rf);
    p.put("min.insync.replicas", minIsr);
    p.put("offsets.topic.replication.factor", rf);
    p.put("transaction.state.log.replication.factor", rf);
    p.put("transaction.state.log.min.isr", minIsr);
    p.put("share.coordinator.state.topic.replication.factor", rf);
    p.put("share.coordinator.state.topic.min.isr", minIsr);
    // Fewer internal partitions than the default 50: the first consumer group comes up faster.
    p.put("offsets.topic.num.partitions", "4");
    p.put("transaction.state.log.num.partitions", "4");
    p.put("share.coordinator.state.topic.num.partitions", "4");

    p.put("num.partitions", "4");
    p.put("auto.create.topics.enable", "true");
    p.put("group.initial.rebalance.delay.ms", "0");
    // The default 128 MiB dedupe buffer is taken from the heap up front.
    p.put("log.cleaner.dedupe.buffer.size", Integer.toString(2 * 1024 * 1024));
    p.put("log.cleaner.threads", "1");
    // Two cores here: fewer threads than the defaults.
    p.put("num.network.threads", "2");
    p.put("num.io.threads", "2");
    p.put("background.threads", "2");
    p.put("num.recovery.threads.per.data.dir", "1");
    return p;
  }

  static final String SASL_SSL_LISTENER = "SASL_SSL_CLIENTS";

  /**
   * Adds a client listener on {@code port} speaking SASL_SSL (mechanism PLAIN, one user) with the
   * PEM certificate chain and key given inline, to properties made by {@link #of} or {@link #node}.
   */
  static void addSaslSslListener(Map<String, String> p, int port, String certChainPem, String keyPem, String user,
      String password) {
    String address = SASL_SSL_LISTENER + "://" + HOST + ":" + port;
    p.put("listeners", p.get("listeners") + "," + address);
    p.put("advertised.listeners", p.get("advertised.listeners") + "," + address);
    p.put("listener.security.protocol.map", p.get("listener.security.protocol.map") + "," + SASL_SSL_LISTENER
        + ":SASL_SSL");
    String prefix = "listener.name." + SASL_SSL_LISTENER.toLowerCase(java.util.Locale.ROOT) + ".";
    p.put(prefix + "sasl.enabled.mechanisms", "PLAIN");
    p.put(prefix + "plain.sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required user_"
        + user + "=\"" + password + "\";");
    p.put(prefix + "ssl.keystore.type", "PEM");
    p.put(prefix + "ssl.keystore.certificate.chain", certChainPem);
    p.put(prefix + "ssl.keystore.key", keyPem);
  }
}
