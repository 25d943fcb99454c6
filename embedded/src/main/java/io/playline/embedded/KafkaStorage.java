package io.playline.embedded;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.kafka.metadata.storage.Formatter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Formats a KRaft node's log directory, as {@code kafka-storage.sh format} ({@code
 * kafka.tools.StorageTool}) does, but in this JVM: a separate JVM per directory costs seconds of
 * CPU on a small machine. Stateless.
 */
final class KafkaStorage {

  private static final Logger log = LoggerFactory.getLogger(KafkaStorage.class);

  private KafkaStorage() {}

  /**
   * Formats {@code logDir} as node {@code nodeId} of cluster {@code clusterId}, for a quorum of
   * static voters (kraft.version 0), unless it already holds {@code meta.properties}. Returns true
   * if it formatted.
   */
  static boolean formatIfNeeded(Path logDir, int nodeId, String clusterId) throws IOException {
    if (Files.exists(logDir.resolve("meta.properties"))) {
      return false;
    }
    Files.createDirectories(logDir);
    ByteArrayOutputStream output = new ByteArrayOutputStream();
    try (PrintStream printStream = new PrintStream(output, true, StandardCharsets.UTF_8)) {
      new Formatter()
          .setPrintStream(printStream)
          .setNodeId(nodeId)
          .setClusterId(clusterId)
          .setControllerListenerName(KafkaServerProperties.CONTROLLER_LISTENER)
          .addDirectory(logDir.toString())
          .setMetadataLogDirectory(logDir.toString())
          .run();
    } catch (Exception e) {
      throw new IOException("Cannot format Kafka log dir " + logDir + ": " + e, e);
    }
    log.debug("Formatted {}: {}", logDir, output.toString(StandardCharsets.UTF_8).strip());
    return true;
  }
}
