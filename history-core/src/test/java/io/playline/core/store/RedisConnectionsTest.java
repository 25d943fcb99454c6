package io.playline.core.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.EventLoop;
import io.netty.channel.nio.NioEventLoopGroup;
import io.playline.embedded.EmbeddedRedis;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

@ExtendWith(RealRedisExtension.class)
class RedisConnectionsTest {

  @Test
  void connectionsOnABorrowedLoopAnswerThereAndLeaveItRunningWhenClosed(RedisNamespace ns) throws Exception {
    NioEventLoopGroup group = new NioEventLoopGroup(1);
    try {
      EventLoop loop = group.next();
      RedisConnections redis = RedisConnections.connect(ns.redisUri(), false, Duration.ofSeconds(5), loop);
      try {
        assertThat(redis.ioLoop()).isSameAs(loop);
        assertThat(answeredOn(redis, ns, loop)).isTrue();
      } finally {
        redis.close();
      }
      // The owner's loop outlives the client.
      assertThat(group.isShuttingDown()).isFalse();
      assertThat(loop.submit(() -> "still running").get(5, TimeUnit.SECONDS)).isEqualTo("still running");
    } finally {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }
  }

  @Test
  void withoutALoopTheClientHasAThreadOfItsOwn(RedisNamespace ns) throws Exception {
    RedisConnections redis = RedisConnections.connect(ns.redisUri(), false, Duration.ofSeconds(5));
    try {
      EventLoop own = (EventLoop) redis.ioLoop();
      // Every connection, not only the first ones: each lives on that one thread.
      for (int i = 0; i < 4; i++) {
        assertThat(answeredOn(redis, ns, own)).isTrue();
      }
    } finally {
      redis.close();
    }
  }

  /** Whether a pipelined SET and GET (the heartbeat writer's kind of connection) complete on {@code loop}. */
  private static boolean answeredOn(RedisConnections redis, RedisNamespace ns, EventLoop loop) throws Exception {
    byte[] key = (ns.keyPrefix() + "loop").getBytes(StandardCharsets.UTF_8);
    var connection = redis.newPipeline();
    var commands = RedisConnections.commands(connection);
    // Callbacks attached before the flush: they run where the answer is read.
    CompletableFuture<Boolean> set = commands.set(key, "v".getBytes(StandardCharsets.UTF_8))
        .thenApply(ok -> loop.inEventLoop()).toCompletableFuture();
    CompletableFuture<Boolean> get = commands.get(key)
        .thenApply(v -> loop.inEventLoop() && "v".equals(new String(v, StandardCharsets.UTF_8))).toCompletableFuture();
    connection.flushCommands();
    return set.get(5, TimeUnit.SECONDS) && get.get(5, TimeUnit.SECONDS);
  }

  @Test
  void commandsIssuedInOneLoopTurnReachRedisInOneWrite(@TempDir Path dir) throws Exception {
    // A Redis of its own: the count below is server-wide, and the test JVM's shared Redis also
    // answers whatever other tests' clients still send.
    try (EmbeddedRedis server = EmbeddedRedis.start(new EmbeddedRedis.Options(dir, 0, false));
        RedisConnections redis = RedisConnections.connect(server.redisUri(), false, Duration.ofSeconds(5))) {
      var shared = redis.shared();
      byte[] key = "coalesced".getBytes(StandardCharsets.UTF_8);
      long before = readsProcessed(redis);
      // As the push registry does from a batch's answer: many auto-flushed commands in one task.
      CompletableFuture<CompletableFuture<Void>> issued = new CompletableFuture<>();
      redis.ioLoop().execute(() -> {
        CompletableFuture<?>[] calls = new CompletableFuture<?>[50];
        for (int i = 0; i < calls.length; i++) {
          calls[i] = shared.incr(key).toCompletableFuture();
        }
        issued.complete(CompletableFuture.allOf(calls));
      });
      issued.get(5, TimeUnit.SECONDS).get(5, TimeUnit.SECONDS);
      long reads = readsProcessed(redis) - before;
      assertThat(new String(shared.get(key).get(5, TimeUnit.SECONDS), StandardCharsets.UTF_8)).isEqualTo("50");
      // One read event for the 50 commands, one for the INFO that measures it (one spare for a
      // write split by the kernel); 50 separate writes would show as many reads.
      assertThat(reads).isLessThanOrEqualTo(3);
    }
  }

  /** Redis's count of read events processed, all clients. */
  private static long readsProcessed(RedisConnections redis) throws Exception {
    String info = redis.shared().info("stats").get(5, TimeUnit.SECONDS);
    for (String line : info.split("\\r?\\n")) {
      if (line.startsWith("total_reads_processed:")) {
        return Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
      }
    }
    throw new IllegalStateException("no total_reads_processed in INFO stats");
  }
}
