package io.playline.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** One real 3-node cluster for the class; each test uses its own topic and leaves 3 nodes up. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KafkaClusterProcessesTest {

  /** C1 only: the nodes start on less CPU, which matters more on two cores than peak speed. */
  private static final List<String> TEST_JVM_ARGS = List.of("-XX:TieredStopAtLevel=1");

  private Path workDir;
  private KafkaClusterProcesses cluster;
  private Admin admin;

  @BeforeAll
  void startCluster() throws IOException {
    workDir = TestWorkDirs.freshDir("kafka-cluster-processes");
    cluster = KafkaClusterProcesses.start(
        new KafkaClusterProcesses.Options(workDir.resolve("cluster"), 3, null, 384, TEST_JVM_ARGS));
    admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers()));
  }

  @AfterAll
  void closeCluster() {
    if (admin != null) {
      admin.close();
    }
    if (cluster != null) {
      cluster.close();
      assertThat(IntStream.rangeClosed(1, 3).filter(cluster::isRunning)).isEmpty();
      assertThat(TestWorkDirs.processesMentioning(workDir)).isEmpty();
    }
  }

  @Test
  void threeNodesFormOneClusterWhoseTopicsHaveThreeReplicasAndMinIsrTwo() throws Exception {
    assertThat(cluster.bootstrapServers().split(",")).hasSize(3);
    assertThat(admin.describeCluster().nodes().get(30, TimeUnit.SECONDS))
        .extracting(Node::id).containsExactlyInAnyOrder(1, 2, 3);

    String topic = "defaults";
    admin.createTopics(List.of(new NewTopic(topic, 2, (short) -1))).all().get(30, TimeUnit.SECONDS);
    // A topic just created may not be in every broker's metadata yet: describe it until it is.
    await().atMost(Duration.ofSeconds(30)).ignoreExceptions().untilAsserted(() -> assertThat(describe(topic).partitions())
        .allSatisfy(p -> assertThat(p.replicas()).hasSize(3)));
    Config config = admin.describeConfigs(List.of(new ConfigResource(ConfigResource.Type.TOPIC, topic)))
        .all().get(30, TimeUnit.SECONDS).values().iterator().next();
    assertThat(config.get("min.insync.replicas").value()).isEqualTo("2");

    assertThat(produce(topic, 0, 20)).hasSize(20);
    assertThat(consume(topic, 20)).containsExactlyInAnyOrderElementsOf(values(0, 20));
  }

  @Test
  void acksAllSurvivesKillOfALeaderAndTheRestartedNodeRejoinsTheIsr() throws Exception {
    String topic = "failover";
    admin.createTopics(List.of(new NewTopic(topic, 1, (short) 3)
        .configs(Map.of("min.insync.replicas", "2")))).all().get(30, TimeUnit.SECONDS);
    await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
        .until(() -> describe(topic).partitions().get(0).isr().size() == 3);
    produce(topic, 0, 50);

    int leader = describe(topic).partitions().get(0).leader().id();
    cluster.kill(leader);
    assertThat(cluster.isRunning(leader)).isFalse();

    produce(topic, 50, 100);
    assertThat(consume(topic, 100)).containsExactlyInAnyOrderElementsOf(values(0, 100));
    await().atMost(Duration.ofSeconds(30)).ignoreExceptions().untilAsserted(() -> {
      TopicPartitionInfo afterKill = describe(topic).partitions().get(0);
      assertThat(afterKill.leader().id()).isNotEqualTo(leader);
      assertThat(afterKill.isr()).extracting(Node::id).doesNotContain(leader);
    });

    cluster.restart(leader);
    assertThat(cluster.isRunning(leader)).isTrue();
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250)).ignoreExceptions()
        .until(() -> describe(topic).partitions().get(0).isr().size() == 3);
    assertThat(admin.describeCluster().nodes().get(30, TimeUnit.SECONDS)).hasSize(3);
  }

  @Test
  void gracefulStopOfALeaderHandsLeadershipOverAndRestartBringsTheNodeBack() throws Exception {
    String topic = "graceful";
    admin.createTopics(List.of(new NewTopic(topic, 1, (short) 3))).all().get(30, TimeUnit.SECONDS);
    await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
        .until(() -> describe(topic).partitions().get(0).isr().size() == 3);
    int leader = describe(topic).partitions().get(0).leader().id();

    cluster.stop(leader);
    assertThat(cluster.isRunning(leader)).isFalse();
    // A controlled shutdown moves leadership away before the process exits.
    await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
        .untilAsserted(() -> assertThat(describe(topic).partitions().get(0).leader().id()).isNotEqualTo(leader));
    assertThat(produce(topic, 0, 20)).hasSize(20);

    cluster.restart(leader);
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250)).ignoreExceptions()
        .until(() -> describe(topic).partitions().get(0).isr().size() == 3);
    assertThat(consume(topic, 20)).containsExactlyInAnyOrderElementsOf(values(0, 20));
  }

  @Test
  void aNodeThatCannotStartFailsTheStartWithItsLogAndLeavesNoProcess() throws IOException {
    Path failing = workDir.resolve("failing");
    Files.createDirectories(failing);
    KafkaClusterProcesses.Options options = new KafkaClusterProcesses.Options(
        failing, 2, null, 128, List.of("-XX:+NoSuchOptionForThisTest"));

    assertThatThrownBy(() -> KafkaClusterProcesses.start(options))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("exited with code")
        .hasMessageContaining("Unrecognized VM option");
    assertThat(TestWorkDirs.processesMentioning(failing)).isEmpty();
  }

  @Test
  void optionsRejectAnEmptyClusterAndATinyHeap() {
    assertThatThrownBy(() -> new KafkaClusterProcesses.Options(workDir, 0, null, 384, List.of()))
        .hasMessageContaining("nodes: 0");
    assertThatThrownBy(() -> new KafkaClusterProcesses.Options(workDir, 3, null, 16, List.of()))
        .hasMessageContaining("heapMegabytes: 16");
  }

  private TopicDescription describe(String topic) throws Exception {
    return admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
  }

  private List<RecordMetadata> produce(String topic, int from, int to) throws Exception {
    Map<String, Object> config = Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers(),
        ProducerConfig.ACKS_CONFIG, "all",
        ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 60_000);
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
      List<Future<RecordMetadata>> sent = new ArrayList<>();
      for (String value : values(from, to)) {
        sent.add(producer.send(new ProducerRecord<>(topic, value, value)));
      }
      List<RecordMetadata> acked = new ArrayList<>();
      for (Future<RecordMetadata> future : sent) {
        acked.add(future.get(90, TimeUnit.SECONDS));
      }
      return acked;
    }
  }

  /** Reads {@code topic} from the beginning with a fresh consumer group. */
  private List<String> consume(String topic, int expected) {
    Map<String, Object> config = Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers(),
        ConsumerConfig.GROUP_ID_CONFIG, topic + "-" + System.nanoTime(),
        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    List<String> values = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
      consumer.subscribe(List.of(topic));
      await().atMost(Duration.ofSeconds(60)).pollInSameThread().until(() -> {
        consumer.poll(Duration.ofMillis(200)).forEach(r -> values.add(r.value()));
        return values.size() >= expected;
      });
      consumer.commitSync(Duration.ofSeconds(30));
    }
    return values;
  }

  private static List<String> values(int from, int to) {
    return IntStream.range(from, to).mapToObj(i -> "play-" + i).toList();
  }
}
