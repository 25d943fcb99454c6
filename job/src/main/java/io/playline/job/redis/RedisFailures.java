package io.playline.job.redis;

import io.lettuce.core.RedisBusyException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisLoadingException;
import io.lettuce.core.RedisReadOnlyException;
import io.playline.core.store.RetriableStoreException;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Waits for Redis replies with a deadline and sorts failures: an error reply about the data (such
 * as WRONGTYPE) is permanent, an {@link ErrorReply}; timeouts, lost
 * connections and a server that is loading, busy, read-only or re-sharding become {@link
 * RetriableStoreException}. The one place that maps Lettuce's failures to the job's types.
 * Stateless.
 */
final class RedisFailures {
  /** Error replies that mean "not now" rather than "not this data". */
  private static final List<String> TRANSIENT_REPLIES = List.of("CLUSTERDOWN", "TRYAGAIN", "MASTERDOWN", "LOADING");

  private RedisFailures() {}

  /** The reply of {@code reply}, waiting until {@code deadline}. */
  static <T> T await(CompletionStage<T> reply, RoundTripDeadline deadline, String what) {
    try {
      return reply.toCompletableFuture().get(deadline.remainingNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RetriableStoreException("Redis " + what + " interrupted", e);
    } catch (TimeoutException e) {
      throw new RetriableStoreException("Redis " + what + " timed out", e);
    } catch (ExecutionException e) {
      throw of(what, e.getCause() == null ? e : e.getCause());
    }
  }

  /** The exception to throw for {@code error}, which happened while doing {@code what}. */
  static RuntimeException of(String what, Throwable error) {
    if (permanent(error)) {
      return new ErrorReply("Redis " + what + " failed: " + error.getMessage(), error);
    }
    return new RetriableStoreException("Redis " + what + " failed", error);
  }

  /** Redis answered an error about the data itself (e.g. WRONGTYPE); retrying cannot help. */
  static final class ErrorReply extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    ErrorReply(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** True for an error reply about the data itself; retrying the same command cannot help. */
  static boolean permanent(Throwable error) {
    if (!(error instanceof RedisCommandExecutionException)
        || error instanceof RedisLoadingException
        || error instanceof RedisBusyException
        || error instanceof RedisReadOnlyException) {
      return false;
    }
    String message = error.getMessage();
    return message == null || TRANSIENT_REPLIES.stream().noneMatch(message::startsWith);
  }
}
