package io.playline.client.internal;

import io.playline.client.PlaylineException;
import io.playline.proto.lite.v1.ClientFrame;
import io.playline.proto.lite.v1.Error.Code;
import io.playline.proto.lite.v1.ServerFrame;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Queries over the stream (progress, history, delete, clear), matched to their answers by seq. A
 * query made while not connected waits for the next connection; one in flight when the
 * connection is lost fails with {@code UNAVAILABLE} (the caller decides whether to retry); each
 * fails with {@code UNAVAILABLE} when not answered within the request timeout. An {@code Error}
 * answer fails the future with its code and message.
 *
 * <p>Confined to the client's loop.
 */
final class RequestTracker {
  /** Queries waiting for a connection, at most; more fail at once. */
  static final int MAX_QUEUED = 1024;

  /** Turns the answer frame into the future's value, or throws when it is not the expected kind. */
  interface Answer<T> {
    T read(ServerFrame frame);
  }

  private final class Request<T> {
    final ClientFrame.Builder frame;
    final Answer<T> answer;
    final CompletableFuture<T> future;
    Loop.@Nullable Scheduled timeout;
    long seq;

    Request(ClientFrame.Builder frame, Answer<T> answer, CompletableFuture<T> future) {
      this.frame = frame;
      this.answer = answer;
      this.future = future;
    }

    void answer(ServerFrame f) {
      cancelTimeout();
      if (f.hasError()) {
        callbacks.fail(future, new PlaylineException(f.getError().getCode(), f.getError().getMessage()));
        return;
      }
      T value;
      try {
        value = answer.read(f);
      } catch (RuntimeException e) {
        callbacks.fail(future, new PlaylineException(Code.INTERNAL, "unexpected answer " + f.getBodyCase()));
        return;
      }
      callbacks.complete(future, value);
    }

    void fail(PlaylineException e) {
      cancelTimeout();
      callbacks.fail(future, e);
    }

    private void cancelTimeout() {
      if (timeout != null) {
        timeout.cancel();
        timeout = null;
      }
    }
  }

  private final Loop loop;
  private final Seqs seqs;
  private final Callbacks callbacks;
  private final long timeoutMs;
  private final ArrayDeque<Request<?>> queued = new ArrayDeque<>();
  private final Map<Long, Request<?>> inFlight = new HashMap<>();

  RequestTracker(Loop loop, Seqs seqs, Callbacks callbacks, long timeoutMs) {
    this.loop = loop;
    this.seqs = seqs;
    this.callbacks = callbacks;
    this.timeoutMs = timeoutMs;
  }

  /** Sends the query now on {@code conn}, or queues it when {@code conn} is null (not connected). */
  <T> void submit(ClientFrame.Builder frame, Answer<T> answer, CompletableFuture<T> future,
      Transport.@Nullable Connection conn) {
    if (conn == null && queued.size() >= MAX_QUEUED) {
      callbacks.fail(future, new PlaylineException(Code.UNAVAILABLE, "not connected and " + MAX_QUEUED
          + " queries already wait for a connection"));
      return;
    }
    Request<T> r = new Request<>(frame, answer, future);
    r.timeout = loop.schedule(() -> timedOut(r), timeoutMs);
    if (conn == null) {
      queued.add(r);
    } else {
      send(r, conn);
    }
  }

  private void send(Request<?> r, Transport.Connection conn) {
    r.seq = seqs.next();
    inFlight.put(r.seq, r);
    conn.send(r.frame.setSeq(r.seq).build());
  }

  private void timedOut(Request<?> r) {
    r.timeout = null;
    if (queued.remove(r) || inFlight.remove(r.seq, r)) {
      r.fail(new PlaylineException(Code.UNAVAILABLE, "no answer within " + timeoutMs + " ms"));
    }
  }

  /** Sends every queued query on the new connection. */
  void sendQueued(Transport.Connection conn) {
    for (Request<?> r; (r = queued.poll()) != null; ) {
      send(r, conn);
    }
  }

  /** Completes the query {@code frame} answers; false when its seq is not a query in flight. */
  boolean onAnswer(ServerFrame frame) {
    Request<?> r = inFlight.remove(frame.getSeq());
    if (r == null) {
      return false;
    }
    r.answer(frame);
    return true;
  }

  /** Whether no query awaits an answer on the current connection. */
  boolean idle() {
    return inFlight.isEmpty();
  }

  /** The connection is gone: queries in flight can no longer be answered. */
  void onConnectionLost() {
    failInFlight(new PlaylineException(Code.UNAVAILABLE, "connection lost before the answer; retry"));
  }

  /** Fails every query, queued or in flight. */
  void failAll(PlaylineException error) {
    failInFlight(error);
    List<Request<?>> waiting = new ArrayList<>(queued);
    queued.clear();
    for (Request<?> r : waiting) {
      r.fail(error);
    }
  }

  private void failInFlight(PlaylineException error) {
    List<Request<?>> failed = new ArrayList<>(inFlight.values());
    inFlight.clear();
    for (Iterator<Request<?>> it = failed.iterator(); it.hasNext(); ) {
      it.next().fail(error);
    }
  }

  /** A request's answer kinds: one helper per query so callers stay declarative. */
  static <T> Answer<T> expect(ServerFrame.BodyCase kind, Function<ServerFrame, T> read) {
    return f -> {
      if (f.getBodyCase() != kind) {
        throw new IllegalStateException("expected " + kind + ", got " + f.getBodyCase());
      }
      return read.apply(f);
    };
  }
}
