package io.playline.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import ch.qos.logback.core.status.Status;
import ch.qos.logback.core.status.StatusUtil;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The logging configuration the standalone jar carries and the distribution ships as
 * config/logback.xml, read in a logging context of its own: files only for a node (the log
 * directory set), none for the commands, no warning of its own, and the JSON switch
 * docs/operations.md describes works.
 */
class LogbackConfigTest {
  private static final String PATTERN_ENCODER =
      "<encoder><pattern>%d{ISO8601} %-5level [%thread] %logger %msg%n</pattern></encoder>";
  private static final String JSON_ENCODER = "<encoder class=\"ch.qos.logback.classic.encoder.JsonEncoder\"/>";

  @TempDir Path dir;

  private static String shipped() throws Exception {
    try (InputStream in = LogbackConfigTest.class.getClassLoader().getResourceAsStream("logback.xml")) {
      assertThat(in).as("logback.xml of the roles jar").isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** A context configured from {@code xml}, with the node's log directory {@code logDir} (null: a command). */
  private static LoggerContext configure(String xml, @Nullable Path logDir) throws Exception {
    LoggerContext context = new LoggerContext();
    context.setMDCAdapter(new LogbackMDCAdapter());
    if (logDir != null) {
      context.putProperty("playline.log.dir", logDir.toString());
    }
    JoranConfigurator configurator = new JoranConfigurator();
    configurator.setContext(context);
    configurator.doConfigure(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
    List<Status> problems = context.getStatusManager().getCopyOfStatusList().stream()
        .filter(s -> s.getEffectiveLevel() >= Status.WARN).toList();
    assertThat(problems).as("logback's own warnings and errors (printed on every start)").isEmpty();
    assertThat(new StatusUtil(context).getHighestLevel(0)).isLessThan(Status.WARN);
    return context;
  }

  @Test
  void aCommandLogsToTheConsoleOnlyAndCreatesNoFile() throws Exception {
    LoggerContext context = configure(shipped(), null);
    Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    assertThat(root.getAppender("CONSOLE")).isNotNull();
    assertThat(root.getAppender("FILE")).isNull();
    context.getLogger("io.playline.test").info("a command's line");
    context.stop();
    try (var files = Files.list(dir)) {
      assertThat(files).isEmpty();
    }
  }

  @Test
  void aNodeWritesUnderItsLogDirectory() throws Exception {
    Path logs = dir.resolve("logs");
    LoggerContext context = configure(shipped(), logs);
    context.getLogger("io.playline.test").info("a node's line");
    // The embedded servers' warnings with nothing to act on are errors-only; Playline's own INFO is kept.
    assertThat(context.getLogger("org.apache.hadoop.hbase.ZNodeClearer").isWarnEnabled()).isFalse();
    assertThat(context.getLogger("org.apache.kafka.clients.NetworkClient").isWarnEnabled()).isTrue();
    context.stop();
    assertThat(Files.readString(logs.resolve("playline.log"))).contains("INFO  [main] io.playline.test a node's line");
  }

  @Test
  void aClosingZooKeeperWatchersRefusedEventIsDroppedAndEveryOtherWatcherErrorKept() throws Exception {
    Path logs = dir.resolve("logs");
    LoggerContext context = configure(shipped(), logs);
    Logger zookeeper = context.getLogger("org.apache.zookeeper.ClientCnxn");
    zookeeper.error("Error while calling watcher.", refusedBy("org.apache.hadoop.hbase.zookeeper.ZKWatcher",
        "refused by a closing watcher's executor"));
    zookeeper.error("Error while calling watcher.", new IllegalStateException("a watcher failed"));
    zookeeper.error("Error while calling watcher.", refusedBy("com.example.OtherWatcher", "another watcher's"));
    zookeeper.warn("Error while calling watcher.", refusedBy("org.apache.hadoop.hbase.zookeeper.ZKWatcher",
        "the same at WARN"));
    zookeeper.error("Session expired", refusedBy("org.apache.hadoop.hbase.zookeeper.ZKWatcher", "another message"));
    context.getLogger("io.playline.test").error("Error while calling watcher.",
        refusedBy("org.apache.hadoop.hbase.zookeeper.ZKWatcher", "Playline's own"));
    context.stop();
    String log = Files.readString(logs.resolve("playline.log"));
    assertThat(log).doesNotContain("refused by a closing watcher's executor")
        .contains("a watcher failed", "another watcher's", "the same at WARN", "another message", "Playline's own");
  }

  /** A refused hand-off as thrown inside {@code watcher}'s {@code process}. */
  private static RejectedExecutionException refusedBy(String watcher, String message) {
    RejectedExecutionException e = new RejectedExecutionException(message);
    e.setStackTrace(new StackTraceElement[] {
        new StackTraceElement("java.util.concurrent.ThreadPoolExecutor", "execute", "ThreadPoolExecutor.java", 1360),
        new StackTraceElement(watcher, "process", "Watcher.java", 613),
        new StackTraceElement("org.apache.zookeeper.ClientCnxn$EventThread", "processEvent", "ClientCnxn.java", 579)});
    return e;
  }

  @Test
  void theDocumentedJsonEncoderWritesOneJsonObjectPerLine() throws Exception {
    String xml = shipped();
    assertThat(xml).contains(PATTERN_ENCODER).contains(JSON_ENCODER);
    Path logs = dir.resolve("logs");
    LoggerContext context = configure(xml.replace(PATTERN_ENCODER, JSON_ENCODER), logs);
    context.getLogger("io.playline.test").warn("a line for the pipeline");
    context.stop();
    List<String> lines = Files.readAllLines(logs.resolve("playline.log"));
    JsonNode event = lines.stream().map(LogbackConfigTest::json).filter(n -> n.has("message")).findFirst()
        .orElseThrow();
    assertThat(event.get("level").asText()).isEqualTo("WARN");
    assertThat(event.get("loggerName").asText()).isEqualTo("io.playline.test");
    assertThat(event.get("message").asText()).isEqualTo("a line for the pipeline");
  }

  private static JsonNode json(String line) {
    try {
      return new ObjectMapper().readTree(line);
    } catch (Exception e) {
      throw new AssertionError("not JSON: " + line, e);
    }
  }
}
