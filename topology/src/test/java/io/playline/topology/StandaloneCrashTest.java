package io.playline.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.playline.embedded.LeftoverRedis;
import io.playline.roles.endpoints.Endpoints;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code bin/playline standalone} killed with -9 and started again on the same data directory: where
 * the killed JVM's {@code redis-server} outlives it (an OS without a parent-death signal, simulated
 * here by {@code -Dplayline.embedded.exitWithParent=false}), the next start must find it through its
 * pid file and stop it before using the append-only directory, and then serve the data it held, with
 * exactly one {@code redis-server} on the directory. (That it exits with its JVM where the OS allows:
 * {@code ParentDeathSignalTest}.)
 */
class StandaloneCrashTest {
  private static final Duration START = Duration.ofMinutes(3);

  @Test
  void aRestartAfterKill9StopsTheLeftoverRedisAndServesItsData() throws Exception {
    Path data = Path.of("target", "standalone-crash-" + UUID.randomUUID()).toAbsolutePath();
    Process first = start(data, "-Dplayline.embedded.exitWithParent=false");
    long leftover;
    try {
      String uri = redisUri(data);
      leftover = redisPid(data);
      try (Redis redis = new Redis(uri)) {
        redis.c.sync().configSet("appendfsync", "always");
        redis.c.sync().set("crash-test", "kept");
      }
    } finally {
      first.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }
    assertThat(ProcessHandle.of(leftover).filter(ProcessHandle::isAlive)).as("redis-server outlives a kill -9")
        .isPresent();

    Files.delete(data.resolve("endpoints.json"));
    Process second = start(data);
    try {
      assertThat(ProcessHandle.of(leftover).filter(ProcessHandle::isAlive)).as("the leftover after the restart")
          .isEmpty();
      long now = redisPid(data);
      assertThat(now).isNotEqualTo(leftover);
      try (Redis redis = new Redis(redisUri(data))) {
        assertThat(redis.c.sync().get("crash-test")).isEqualTo("kept");
      }
      assertThat(LeftoverRedis.findIn(data.resolve("redis"))).containsExactly(now);
    } finally {
      second.destroy();
      second.waitFor(60, TimeUnit.SECONDS);
      second.destroyForcibly();
    }
    await("no redis-server left after a graceful stop").atMost(Duration.ofSeconds(30))
        .until(() -> LeftoverRedis.findIn(data.resolve("redis")).isEmpty());
  }

  private static Process start(Path data, String... jvmFlags) throws IOException {
    Files.createDirectories(data);
    List<String> cmd = new ArrayList<>(JvmFlags.java("-Xms64m -Xmx512m", data.resolve("logs")));
    cmd.addAll(List.of(jvmFlags));
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "io.playline.embedded.internal.ExitWithParent",
        "io.playline.standalone.PlaylineCli", "standalone", "--set", "data.dir=" + data, "--set", "bind.host=127.0.0.1",
        "--set", "ws.port=0", "--set", "grpc.port=0", "--set", "api.port=0", "--set", "admin.port=0"));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(data.resolve("standalone.log").toFile())).start();
    await("standalone up").atMost(START).until(() -> {
      if (!p.isAlive()) {
        throw new IllegalStateException("standalone exited with " + p.exitValue() + "; see "
            + data.resolve("standalone.log"));
      }
      return Files.isRegularFile(data.resolve("endpoints.json"));
    });
    return p;
  }

  private static String redisUri(Path data) throws IOException {
    return Endpoints.read(data.resolve(Endpoints.FILE_NAME), Endpoints.Field.REDIS_URI).redisUri().orElseThrow();
  }

  private static long redisPid(Path data) throws IOException {
    return Long.parseLong(Files.readString(data.resolve("redis").resolve(LeftoverRedis.PID_FILE),
        StandardCharsets.US_ASCII).trim());
  }

  /** One Redis connection, closed with its client. */
  private static final class Redis implements AutoCloseable {
    final RedisClient client;
    final StatefulRedisConnection<String, String> c;

    Redis(String uri) {
      client = RedisClient.create(uri);
      c = client.connect();
    }

    @Override
    public void close() {
      c.close();
      client.shutdown();
    }
  }
}
