package io.playline.bench.reads;

import io.grpc.stub.StreamObserver;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/** A unary call's outcome as a stage; a wrong answer (a missing record) fails it. Completed on a gRPC thread. */
final class UnaryAnswer<T> implements StreamObserver<T> {
  final CompletableFuture<T> done = new CompletableFuture<>();
  private final java.util.function.Predicate<T> complete;
  private @Nullable T value;

  UnaryAnswer(java.util.function.Predicate<T> complete) {
    this.complete = complete;
  }

  @Override
  public void onNext(T v) {
    value = v;
  }

  @Override
  public void onError(Throwable t) {
    done.completeExceptionally(t);
  }

  @Override
  public void onCompleted() {
    T v = value;
    if (v == null || !complete.test(v)) {
      done.completeExceptionally(new IllegalStateException("incomplete answer: " + v));
    } else {
      done.complete(v);
    }
  }
}
