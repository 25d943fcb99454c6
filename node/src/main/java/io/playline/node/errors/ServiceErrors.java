package io.playline.node.errors;

import io.playline.core.query.InvalidRequestException;
import io.playline.core.query.RateLimitedException;
import io.playline.core.store.RetriableStoreException;
import io.playline.proto.v1.Error;
import io.playline.proto.v1.Error.Code;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place that turns a failed history-core call into a client-facing {@code Error}: invalid
 * input keeps its (client-safe) message, a refusal for now is RATE_LIMITED with its retry time, backend trouble becomes a retryable UNAVAILABLE, anything
 * else an INTERNAL with a fixed message — never an exception's text.
 */
public final class ServiceErrors {
  private static final Logger log = LoggerFactory.getLogger(ServiceErrors.class);

  private ServiceErrors() {}

  public static Error toError(Throwable failure, String operation) {
    Throwable cause = unwrap(failure);
    if (cause instanceof InvalidRequestException) {
      return Errors.of(Code.INVALID_ARGUMENT, cause.getMessage());
    }
    if (cause instanceof RateLimitedException limited) {
      // The internal API answers it RESOURCE_EXHAUSTED (StatusMapper) with the same message.
      return Error.newBuilder().setCode(Code.RATE_LIMITED).setMessage(cause.getMessage())
          .setRetryAfterMs((int) Math.min(Integer.MAX_VALUE, limited.retryAfterMs())).build();
    }
    if (cause instanceof RetriableStoreException) {
      log.debug("{} failed transiently: {}", operation, cause.toString());
      return Errors.of(Code.UNAVAILABLE, operation + " is unavailable right now; retry");
    }
    log.warn("{} failed", operation, cause);
    return Errors.of(Code.INTERNAL, operation + " failed");
  }

  /** Runs {@code call}, turning a synchronous throw into a failed stage so one handler sees every failure. */
  public static <T> CompletionStage<T> call(Supplier<CompletionStage<T>> call) {
    try {
      return call.get();
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  public static Throwable unwrap(Throwable t) {
    Throwable cause = t;
    while (cause instanceof CompletionException && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause;
  }
}
