package io.playline.embedded;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Builds the configuration of a single-node Kafka KRaft server (broker and controller in one
 * process) on 127.0.0.1, sized for a development machine.
 */
final class KafkaServerProperties {

  static final int NODE_ID = 1;
  static final String CONTROLLER_LISTENER = "CONTROLLER";

  private KafkaServerProperties() {}

  /**
   * Returns the server properties for a broker listening on {@code port} and a controller on
   * {@code controllerPort}, keeping its logs in {@code logDir}.
   */
  static Map<String, String> of(Path logDir, int port, int controllerPort) {
    Map<String, String> p = new LinkedHashMap<>();
    p.put("process.roles", "broker,controller");
    p.put("node.id", Integer.toString(NODE_ID));
    // Static voters (kraft.version 0), not a dynamic quorum: the voter's address is read from
    // this config on every start, so a restart on other ports keeps working.
    p.put("controller.quorum.voters", NODE_ID + "@127.0.0.1:" + controllerPort);
    p.put("controller.listener.names", CONTROLLER_LISTENER);
    p.put("listeners", "PLAINTEXT://127.0.0.1:" + port + "," + CONTROLLER_LISTENER + "://127.0.0.1:" + controllerPort);
    p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
    p.put("inter.broker.listener.name", "PLAINTEXT");
    p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT," + CONTROLLER_LISTENER + ":PLAINTEXT");
    p.put("log.dirs", logDir.toString());

    // One node: every replication factor and min ISR is 1, or internal topics never come up.
    p.put("default.replication.factor", "1");
    p.put("min.insync.replicas", "1");
    p.put("offsets.topic.replication.factor", "1");
    p.put("transaction.state.log.replication.factor", "1");
    p.put("transaction.state.log.min.isr", "1");
    p.put("share.coordinator.state.topic.replication.factor", "1");
    p.put("share.coordinator.state.topic.min.isr", "1");
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
}
