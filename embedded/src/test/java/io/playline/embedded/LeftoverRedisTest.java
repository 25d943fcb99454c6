package io.playline.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a start finds after a killed run: the {@code redis-server} it left in a directory is
 * stopped before a new one uses the directory, and nothing else is; and what supervision does when
 * a server dies, its restart backoff timed by hand ({@link HandTimers}).
 */
class LeftoverRedisTest {
  private static boolean listening(int port) {
    try {
      new Socket("127.0.0.1", port).close();
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  @Test
  void aRedisServerLeftUnderADirectoryIsStoppedAndOthersAreNot(@TempDir Path topology, @TempDir Path elsewhere)
      throws Exception {
    try (EmbeddedRedis left = EmbeddedRedis.start(new EmbeddedRedis.Options(topology.resolve("redis/node-1"), 0, false));
        EmbeddedRedis other = EmbeddedRedis.start(new EmbeddedRedis.Options(elsewhere.resolve("redis"), 0, false))) {
      assertThat(LeftoverRedis.stopUnder(topology)).containsExactly(left.pid());
      assertThat(listening(left.port())).isFalse();
      assertThat(listening(other.port())).isTrue();
    }
  }

  @Test
  void aStartOnTheDirectoryOfALeftoverStopsItAndServesItsData(@TempDir Path dir) throws Exception {
    Path redisDir = dir.resolve("redis");
    // What a standalone killed with -9 leaves: its redis-server still running on the directory.
    EmbeddedRedis leftover = EmbeddedRedis.start(new EmbeddedRedis.Options(redisDir, 0, true));
    assertThat(Files.readString(redisDir.resolve(LeftoverRedis.PID_FILE), StandardCharsets.US_ASCII).trim())
        .isEqualTo(Long.toString(leftover.pid()));
    RespClient.call("127.0.0.1", leftover.port(), Duration.ofSeconds(2), "SET", "kept", "yes");
    try (EmbeddedRedis next = EmbeddedRedis.start(new EmbeddedRedis.Options(redisDir, 0, true))) {
      assertThat(ProcessHandle.of(leftover.pid()).filter(ProcessHandle::isAlive)).as("the leftover").isEmpty();
      assertThat(RespClient.call("127.0.0.1", next.port(), Duration.ofSeconds(2), "GET", "kept")).isEqualTo("yes");
    } finally {
      leftover.close();
    }
  }

  @Test
  void aPidFileNamingAnotherProcessStopsNothingAndIsRemoved(@TempDir Path dir) throws Exception {
    Process unrelated = new ProcessBuilder("sleep", "120").start();
    try {
      Files.createDirectories(dir);
      Files.writeString(dir.resolve(LeftoverRedis.PID_FILE), Long.toString(unrelated.pid()));
      assertThat(LeftoverRedis.stopIn(dir)).isEmpty();
      assertThat(unrelated.isAlive()).isTrue();
      assertThat(dir.resolve(LeftoverRedis.PID_FILE)).doesNotExist();
    } finally {
      unrelated.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void aSupervisedServerKilledIsRestartedOnItsPortWithItsDataAndACloseIsNot(@TempDir Path dir) throws Exception {
    HandTimers timers = new HandTimers();
    EmbeddedRedis redis = EmbeddedRedis.start(new EmbeddedRedis.Options(dir.resolve("redis"), 0, true));
    try {
      redis.supervise(timers);
      // Every write is on disk before its reply, so a kill -9 loses none of it.
      RespClient.call("127.0.0.1", redis.port(), Duration.ofSeconds(2), "CONFIG", "SET", "appendfsync", "always");
      RespClient.call("127.0.0.1", redis.port(), Duration.ofSeconds(2), "SET", "survives", "a crash");
      long crashed = redis.pid();
      ProcessHandle.of(crashed).orElseThrow().destroyForcibly();

      // The exit is seen: a restart waits for its 1 s backoff, which passes when the test says.
      await().atMost(Duration.ofSeconds(30)).until(() -> !timers.waitingDelaysMs().isEmpty());
      assertThat(timers.waitingDelaysMs()).containsExactly(1_000L);
      assertThat(redis.restarts()).isZero();
      timers.fireAll();
      await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> redis.restarts() == 1
          && "PONG".equals(RespClient.call("127.0.0.1", redis.port(), Duration.ofSeconds(1), "PING")));
      assertThat(redis.pid()).isNotEqualTo(crashed);
      assertThat(RespClient.call("127.0.0.1", redis.port(), Duration.ofSeconds(2), "GET", "survives"))
          .isEqualTo("a crash");
    } finally {
      redis.close();
    }
    // Once the closed server's exit has been handled, no restart waits.
    redis.watching().get(30, TimeUnit.SECONDS);
    assertThat(timers.waitingDelaysMs()).isEmpty();
    assertThat(listening(redis.port())).isFalse();
    assertThat(redis.restarts()).isEqualTo(1);
  }

  @Test
  void aCloseWhileARestartWaitsForItsBackoffCancelsIt(@TempDir Path dir) throws Exception {
    HandTimers timers = new HandTimers();
    EmbeddedRedis redis = EmbeddedRedis.start(new EmbeddedRedis.Options(dir.resolve("redis"), 0, false));
    try {
      redis.supervise(timers);
      ProcessHandle.of(redis.pid()).orElseThrow().destroyForcibly();
      await().atMost(Duration.ofSeconds(30)).until(() -> !timers.waitingDelaysMs().isEmpty());
    } finally {
      redis.close();
    }
    assertThat(timers.waitingDelaysMs()).isEmpty();
    timers.fireAll(); // nothing left to fire
    assertThat(redis.restarts()).isZero();
    assertThat(listening(redis.port())).isFalse();
  }
}
