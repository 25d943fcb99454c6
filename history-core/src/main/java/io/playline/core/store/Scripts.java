package io.playline.core.store;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/** EVALSHA with a fallback to EVAL (which also caches the script) when Redis answers NOSCRIPT. */
public final class Scripts {
  private Scripts() {}

  /**
   * Queues {@code script} on {@code commands}; if the server lost its script cache, runs it again
   * with its body on {@code fallback} (an auto-flushing connection).
   */
  public static <T> CompletableFuture<T> eval(RedisClusterAsyncCommands<byte[], byte[]> commands,
      RedisClusterAsyncCommands<byte[], byte[]> fallback, RedisScript script, ScriptOutputType type,
      byte[][] keys, byte[]... args) {
    return eval(commands, fallback, script, type, null, keys, args);
  }

  /**
   * As {@link #eval(RedisClusterAsyncCommands, RedisClusterAsyncCommands, RedisScript, ScriptOutputType,
   * byte[][], byte[]...)}, running {@code onFallback} (when not null) as the body is sent again: the
   * call then runs after whatever {@code commands} pipelined behind it, which a caller relying on
   * the pipeline's order must make up for.
   */
  public static <T> CompletableFuture<T> eval(RedisClusterAsyncCommands<byte[], byte[]> commands,
      RedisClusterAsyncCommands<byte[], byte[]> fallback, RedisScript script, ScriptOutputType type,
      @Nullable Runnable onFallback, byte[][] keys, byte[]... args) {
    CompletableFuture<T> first = commands.<T>evalsha(script.sha(), type, keys, args).toCompletableFuture();
    // One dependent stage per command (this is the write path's per-heartbeat cost).
    return first.exceptionallyCompose(error -> {
      if (!RedisScript.isNoScript(error)) {
        return CompletableFuture.failedFuture(error);
      }
      if (onFallback != null) {
        onFallback.run();
      }
      return fallback.<T>eval(script.body().getBytes(StandardCharsets.UTF_8), type, keys, args).toCompletableFuture();
    });
  }

  public static byte[] num(long n) {
    return Long.toString(n).getBytes(StandardCharsets.US_ASCII);
  }
}
