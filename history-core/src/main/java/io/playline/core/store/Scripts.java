package io.playline.core.store;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;

/** EVALSHA with a fallback to EVAL (which also caches the script) when Redis answers NOSCRIPT. */
public final class Scripts {
  private Scripts() {}

  /**
   * Queues {@code script} on {@code commands}; if the server lost its script cache, runs it again
   * with its body on {@code fallback} (an auto-flushing connection), after whatever {@code commands}
   * pipelined behind it.
   */
  public static <T> CompletableFuture<T> eval(RedisClusterAsyncCommands<byte[], byte[]> commands,
      RedisClusterAsyncCommands<byte[], byte[]> fallback, RedisScript script, ScriptOutputType type,
      byte[][] keys, byte[]... args) {
    CompletableFuture<T> first = commands.<T>evalsha(script.sha(), type, keys, args).toCompletableFuture();
    // One dependent stage per command (this is the write path's per-heartbeat cost).
    return first.exceptionallyCompose(error -> RedisScript.isNoScript(error)
        ? fallback.<T>eval(script.body().getBytes(StandardCharsets.UTF_8), type, keys, args).toCompletableFuture()
        : CompletableFuture.failedFuture(error));
  }

  public static byte[] num(long n) {
    return Long.toString(n).getBytes(StandardCharsets.US_ASCII);
  }
}
