package io.playline.client.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

/** Asks the token supplier once, counted, and hands the outcome back on the client's loop. */
final class TokenFetch {
  private static final ClientLog log = ClientLog.of(TokenFetch.class);

  private TokenFetch() {}

  /**
   * Calls the supplier (a throwing supplier counts as a failed fetch) and runs {@code onLoop} with
   * the token or the failure on {@code loop}; dropped if the loop is gone.
   */
  static void fetch(ClientConfig config, Loop loop, ClientCounters counters,
      BiConsumer<@Nullable String, @Nullable Throwable> onLoop) {
    counters.tokenFetches.incrementAndGet();
    CompletionStage<String> fetched;
    try {
      fetched = config.tokens().get();
    } catch (RuntimeException e) {
      CompletableFuture<String> failed = new CompletableFuture<>();
      failed.completeExceptionally(e);
      fetched = failed;
    }
    fetched.whenComplete((value, error) -> {
      try {
        loop.execute(() -> onLoop.accept(value, error));
      } catch (RejectedExecutionException e) {
        log.debug("Client loop gone; dropping a late token");
      }
    });
  }
}
