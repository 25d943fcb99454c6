package io.playline.standalone;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Writes {@code <data dir>/endpoints.json}: the addresses of the (embedded or external) Redis,
 * Kafka and HBase and of Playline's own ports, so operators can point their own tools at them.
 * Written atomically (temp file + move); removed again on shutdown. {@link #writeJson} is the one
 * way Playline writes such a file (roles' {@code --endpoints-out}, the local topology's files).
 */
public final class EndpointsFile {
  private EndpointsFile() {}

  static Path write(Path dataDir, BackendEndpoints backends, Map<String, String> playline) {
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("pid", ProcessHandle.current().pid());
    root.put("startedAt", Instant.now().toString());
    root.put("redis", Map.of("uri", backends.redisUri(), "embedded", backends.embedded().contains("redis")));
    root.put("kafka", Map.of("bootstrapServers", backends.kafkaBootstrapServers(),
        "embedded", backends.embedded().contains("kafka")));
    Map<String, Object> hbase = new LinkedHashMap<>();
    hbase.put("zookeeperQuorum", backends.hbaseZookeeperQuorum());
    hbase.put("zookeeperPort", backends.hbaseZookeeperPort());
    hbase.put("embedded", backends.embedded().contains("hbase"));
    root.put("hbase", hbase);
    root.put("playline", playline);
    Path target = dataDir.resolve("endpoints.json");
    try {
      writeJson(target, root);
    } catch (IOException e) {
      throw new StartupException("cannot write " + target + ": " + e.getMessage(), e);
    }
    return target;
  }

  /** Writes {@code root} as indented JSON to {@code target} atomically (temp file, then move). */
  public static void writeJson(Path target, Map<String, Object> root) throws IOException {
    Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
    new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(tmp.toFile(), root);
    Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }
}
