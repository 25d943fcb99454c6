package io.playline.standalone;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.playline.core.config.ConfigSource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code playline gateway}: one more gateway process (WebSocket, gRPC, internal API, admin) that
 * shares Redis and Kafka with a running standalone (read from its {@code endpoints.json}) or with
 * the external ones {@code redis.uri} and {@code kafka.bootstrap.servers} name. Scale-out for
 * connection count: each process holds as many connections as its descriptor limit allows.
 * Runs until SIGTERM; the main thread waits.
 */
@Command(name = "gateway", mixinStandardHelpOptions = true,
    description = {"Start a gateway-only process sharing the backends of a running standalone (its endpoints.json)",
        "or of redis.uri / kafka.bootstrap.servers. Set distinct ports, e.g. --set ws.port=0 (any free port)."})
final class GatewayCommand implements Callable<Integer> {
  private static final Logger log = LoggerFactory.getLogger(GatewayCommand.class);

  @Option(names = "--data-dir", paramLabel = "DIR",
      description = "The standalone's data dir holding endpoints.json (default: $PLAYLINE_DATA_DIR or ./data).")
  @Nullable Path dataDir;

  @Option(names = "--endpoints-out", paramLabel = "FILE",
      description = "Write this process's pid and addresses here once it serves (removed on exit).")
  @Nullable Path endpointsOut;

  @Mixin ConfigOptions configOptions = new ConfigOptions();

  @Override
  public Integer call() throws Exception {
    Map<String, String> extra = new HashMap<>();
    if (dataDir != null) {
      extra.put("data.dir", dataDir.toString());
    }
    ConfigSource config = configOptions.load(extra);
    StandaloneConfig settings = StandaloneConfig.from(config);
    Path data = settings.dataDir();
    String redis = settings.externalRedisUri().orElse(null);
    String kafka = settings.externalKafka().orElse(null);
    if (redis == null || kafka == null) {
      Path file = data.resolve("endpoints.json");
      if (!Files.isRegularFile(file)) {
        throw new StartupException("no " + file + ": start bin/playline standalone first, or set redis.uri and "
            + "kafka.bootstrap.servers");
      }
      JsonNode root = new ObjectMapper().readTree(file.toFile());
      redis = redis != null ? redis : root.path("redis").path("uri").asText();
      kafka = kafka != null ? kafka : root.path("kafka").path("bootstrapServers").asText();
    }
    GatewayRole role = GatewayRole.start(config, redis, kafka);
    CountDownLatch stopped = new CountDownLatch(1);
    Path out = endpointsOut;
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      role.close();
      if (out != null) {
        try {
          Files.deleteIfExists(out);
        } catch (IOException e) {
          log.debug("Could not remove {}: {}", out, e.toString());
        }
      }
      stopped.countDown();
    }, "playline-gateway-shutdown"));
    if (out != null) {
      write(out, role.addresses(), redis, kafka);
    }
    log.info("Gateway up: {} (backends: redis {}, kafka {})", role.addresses(), redis, kafka);
    stopped.await();
    return 0;
  }

  private static void write(Path out, Map<String, String> own, String redis, String kafka) throws IOException {
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("pid", ProcessHandle.current().pid());
    root.put("role", "gateway");
    root.put("redis", Map.of("uri", redis));
    root.put("kafka", Map.of("bootstrapServers", kafka));
    root.put("playline", own);
    EndpointsFile.writeJson(out, root);
  }
}
