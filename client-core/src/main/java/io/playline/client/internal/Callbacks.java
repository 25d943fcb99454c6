package io.playline.client.internal;

import io.playline.client.Ack;
import io.playline.client.ConnectionState;
import io.playline.client.PlaylineException;
import io.playline.client.PlaylineListener;
import io.playline.proto.lite.v1.HistoryRecord;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Hands listener calls and future completions to the callback executor, so user code never runs
 * inside the session's state changes, and a listener that throws is logged, not propagated.
 * Called on the client's loop; with no executor configured the calls run right there, in order.
 */
final class Callbacks {
  private static final ClientLog log = ClientLog.of(Callbacks.class);

  private final List<PlaylineListener> listeners;
  private final @Nullable Executor executor;

  Callbacks(List<PlaylineListener> listeners, @Nullable Executor executor) {
    this.listeners = listeners;
    this.executor = executor;
  }

  void stateChanged(ConnectionState state, @Nullable Throwable cause) {
    each(l -> l.onStateChanged(state, cause));
  }

  void ack(Ack ack) {
    each(l -> l.onAck(ack));
  }

  void firstToday(String flagDate) {
    each(l -> l.onFirstToday(flagDate));
  }

  void sync(HistoryRecord record) {
    each(l -> l.onProgressSync(record));
  }

  void error(PlaylineException error) {
    each(l -> l.onError(error));
  }

  <T extends @Nullable Object> void complete(CompletableFuture<T> future, T value) {
    run(() -> future.complete(value));
  }

  void fail(CompletableFuture<?> future, Throwable error) {
    run(() -> future.completeExceptionally(error));
  }

  private void each(Consumer<PlaylineListener> call) {
    if (listeners.isEmpty()) {
      return;
    }
    run(() -> {
      for (PlaylineListener l : listeners) {
        try {
          call.accept(l);
        } catch (RuntimeException e) {
          log.warn("Playline listener {} failed", l, e);
        }
      }
    });
  }

  private void run(Runnable task) {
    if (executor == null) {
      task.run();
      return;
    }
    try {
      executor.execute(task);
    } catch (RuntimeException e) {
      log.warn("Callback executor refused a callback; running it on the event loop: {}", e.toString());
      task.run();
    }
  }
}
