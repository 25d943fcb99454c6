package io.playline.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedRedisTest {

  @TempDir Path workDir;

  @Test
  void systemBinaryServesSetAndGet() throws IOException {
    assumeThat(RedisBinary.onPath()).as("redis-server on PATH").isPresent();
    try (EmbeddedRedis redis = EmbeddedRedis.start(new EmbeddedRedis.Options(workDir, 0, false))) {
      assertThat(Path.of(redis.binary())).isEqualTo(RedisBinary.onPath().orElseThrow());
      assertThat(redis.redisUri()).isEqualTo("redis://127.0.0.1:" + redis.port());
      withRedis(redis, commands -> {
        assertThat(commands.set("greeting", "hello")).isEqualTo("OK");
        assertThat(commands.get("greeting")).isEqualTo("hello");
      });
    }
  }

  @Test
  void bundledBinaryServesSetAndGetAsRedis62() throws IOException {
    try (EmbeddedRedis redis = EmbeddedRedis.startBundled(new EmbeddedRedis.Options(workDir, 0, false))) {
      assertThat(Path.of(redis.binary())).startsWith(workDir.toAbsolutePath());
      withRedis(redis, commands -> {
        assertThat(commands.info("server")).contains("redis_version:6.2.");
        assertThat(commands.set("greeting", "hello")).isEqualTo("OK");
        assertThat(commands.get("greeting")).isEqualTo("hello");
      });
    }
  }

  @Test
  void withoutRedisOnPathTheBundledBinaryIsExtracted() throws IOException {
    Path binary = RedisBinary.locate(workDir, workDir.resolve("empty-path").toString());
    assertThat(binary).startsWith(workDir.resolve("bin"));
    assertThat(binary).isExecutable();
    assertThat(RedisBinary.locate(workDir, workDir.resolve("empty-path").toString())).isEqualTo(binary);
  }

  @Test
  void theAppendOnlyFileIsRewrittenOnlyOnceItIsLargeAndExtraArgumentsWin() throws IOException {
    try (EmbeddedRedis redis = EmbeddedRedis.start(new EmbeddedRedis.Options(workDir.resolve("a"), 0, true))) {
      withRedis(redis, commands -> assertThat(commands.configGet("auto-aof-rewrite-min-size"))
          .containsEntry("auto-aof-rewrite-min-size", Long.toString(512L << 20)));
    }
    try (EmbeddedRedis redis = EmbeddedRedis.start(new EmbeddedRedis.Options(workDir.resolve("b"), 0, true,
        List.of("--auto-aof-rewrite-min-size", "1mb")))) {
      withRedis(redis, commands -> assertThat(commands.configGet("auto-aof-rewrite-min-size"))
          .containsEntry("auto-aof-rewrite-min-size", Long.toString(1L << 20)));
    }
  }

  @Test
  void aServerStillLoadingItsDataIsWaitedForPastTheReadyTimeoutButNotPastTheLoadingOne() throws Exception {
    // Answers LOADING to the first 30 PINGs (the waiter pauses 10 ms between them: over 300 ms in
    // all, far past the 100 ms ready timeout), then PONG.
    try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      AtomicInteger pings = new AtomicInteger();
      Thread answering = new Thread(() -> {
        while (!server.isClosed()) {
          try (Socket s = server.accept()) {
            s.getInputStream().read(new byte[64]);
            String reply = pings.incrementAndGet() <= 30 ? "-LOADING Redis is loading the dataset in memory\r\n"
                : "+PONG\r\n";
            s.getOutputStream().write(reply.getBytes(StandardCharsets.US_ASCII));
          } catch (IOException e) {
            return;
          }
        }
      });
      answering.setDaemon(true);
      answering.start();
      RedisReadiness.awaitPong(server.getLocalPort(), Duration.ofMillis(100), Duration.ofMinutes(1), () -> { },
          () -> "test server", () -> "");
      assertThat(pings.get()).isEqualTo(31);
      // Past the loading bound, a server that keeps loading is given up on.
      pings.set(-1_000_000);
      assertThatThrownBy(() -> RedisReadiness.awaitPong(server.getLocalPort(), Duration.ofMillis(100),
          Duration.ofMillis(300), () -> { }, () -> "test server", () -> ""))
          .isInstanceOf(IOException.class).hasMessageContaining("after loading its data");
    }
  }

  @Test
  void nonPersistentServerWritesNoDataFiles() throws IOException {
    try (EmbeddedRedis redis = EmbeddedRedis.start(new EmbeddedRedis.Options(workDir, 0, false))) {
      withRedis(redis, commands -> {
        commands.set("k", "v");
        assertThat(commands.configGet("appendonly")).containsEntry("appendonly", "no");
        assertThat(commands.configGet("save")).containsEntry("save", "");
      });
    }
    assertThat(workDir.resolve("dump.rdb")).doesNotExist();
  }

  @Test
  void persistentRestartKeepsKey() throws IOException {
    int firstPort;
    try (EmbeddedRedis redis = EmbeddedRedis.start(new EmbeddedRedis.Options(workDir, 0, true))) {
      firstPort = redis.port();
      withRedis(redis, commands -> commands.set("survivor", "still-here"));
    }
    try (EmbeddedRedis redis = EmbeddedRedis.start(new EmbeddedRedis.Options(workDir, 0, true))) {
      assertThat(redis.port()).isNotEqualTo(firstPort);
      withRedis(redis, commands -> assertThat(commands.get("survivor")).isEqualTo("still-here"));
    }
  }

  @Test
  void closeIsIdempotentAndStopsTheProcess() throws IOException {
    EmbeddedRedis redis = EmbeddedRedis.start(new EmbeddedRedis.Options(workDir, 0, false));
    redis.close();
    redis.close();
    assertThatThrownBy(() -> RespClient.call("127.0.0.1", redis.port(), Duration.ofMillis(200), "PING"))
        .isInstanceOf(IOException.class);
  }

  @Test
  void takenPortFailsWithTheLogTail() throws IOException {
    try (ServerSocket taken = new ServerSocket()) {
      taken.bind(new InetSocketAddress("127.0.0.1", 0));
      assertThatThrownBy(() -> EmbeddedRedis.start(new EmbeddedRedis.Options(workDir, taken.getLocalPort(), false)))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("exited")
          .hasMessageContaining("Address already in use");
    }
  }

  private static void withRedis(EmbeddedRedis redis, Consumer<RedisCommands<String, String>> body) {
    RedisClient client = RedisClient.create(redis.redisUri());
    try (StatefulRedisConnection<String, String> connection = client.connect()) {
      body.accept(connection.sync());
    } finally {
      client.shutdown();
    }
  }
}
