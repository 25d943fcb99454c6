package io.playline.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The redis-server of a JVM killed with -9 exits by itself where the OS allows it (Linux with setpriv). */
class ParentDeathSignalTest {

  @TempDir Path workDir;

  @BeforeEach
  void linuxWithSetpriv() {
    assumeThat(System.getProperty("os.name")).isEqualTo("Linux");
    assumeThat(RedisBinary.onPath("setpriv", System.getenv("PATH"))).as("setpriv on PATH").isPresent();
  }

  /** A JVM that starts Redis in {@code args[0]} and keeps it until it is killed. */
  public static final class RedisOwner {
    public static void main(String[] args) throws IOException, InterruptedException {
      EmbeddedRedis.start(new EmbeddedRedis.Options(Path.of(args[0]), 0, true));
      new CountDownLatch(1).await();
    }
  }

  @Test
  void theRedisServerOfAJvmKilledWithMinus9Exits() throws IOException {
    Path redisDir = workDir.resolve("redis");
    ChildJvm owner = ChildJvm.start(new ChildJvm.Spec("redis-owner", workDir, workDir.resolve("owner.log"), null, 64,
        List.of(), RedisOwner.class.getName(), List.of(redisDir.toString())));
    try {
      // The owner's redis-server, found by its working directory.
      long redis = await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
          .until(() -> LeftoverRedis.findIn(redisDir), pids -> pids.size() == 1).get(0);

      owner.kill();

      await().atMost(Duration.ofSeconds(10)).until(() -> ProcessHandle.of(redis).filter(ProcessHandle::isAlive).isEmpty());
    } finally {
      owner.kill();
      LeftoverRedis.stopIn(redisDir);
    }
  }

  @Test
  void aServerStartedFromAThreadThatEndsKeepsRunning() throws Exception {
    // Linux signals the child when the thread that started it ends, not the JVM: a supervisor's
    // restart thread, or a pool thread, ends long before the server should.
    AtomicReference<EmbeddedRedis> started = new AtomicReference<>();
    Thread starter = new Thread(() -> {
      try {
        started.set(EmbeddedRedis.start(new EmbeddedRedis.Options(workDir, 0, false)));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });
    starter.start();
    starter.join();
    try (EmbeddedRedis redis = started.get()) {
      assertThat(redis).isNotNull();
      await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).until(() -> ProcessHandle.of(redis.pid())
          .filter(ProcessHandle::isAlive).isPresent());
    }
  }
}
