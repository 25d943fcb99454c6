package io.playline.api.connect;

import io.grpc.Attributes;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerMethodDefinition;
import io.grpc.Status;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One unary call of a gRPC service definition made without gRPC's transport: the request goes to
 * the method's handler (interceptors first, exactly as on the gRPC port) through a {@link
 * ServerCall} of this class's own, whose response, status, headers and trailers complete {@link #result()}.
 * The transport's attributes (remote address, TLS session) are the HTTP connection's, so
 * interceptors that read them see the same as over gRPC. Started on the connection's event loop;
 * the service may answer from any thread.
 *
 * @param <Q> the request type
 * @param <R> the response type
 */
final class UnaryCall<Q, R> extends ServerCall<Q, R> {
  private static final Logger log = LoggerFactory.getLogger(UnaryCall.class);

  /** How a call ended: OK with its response, or another status; the metadata the service sent. */
  record Result(Status status, @Nullable Object response, Metadata headers, Metadata trailers) {}

  private final MethodDescriptor<Q, R> method;
  private final Attributes attributes;
  private final @Nullable String authority;
  private final CompletableFuture<Result> result = new CompletableFuture<>();
  private volatile @Nullable R response;
  private volatile @Nullable Metadata headers;
  private volatile boolean cancelled;
  private ServerCall.@Nullable Listener<Q> listener;

  private UnaryCall(MethodDescriptor<Q, R> method, Attributes attributes, @Nullable String authority) {
    this.method = method;
    this.attributes = attributes;
    this.authority = authority;
  }

  /**
   * Starts {@code definition} with {@code headers}: its interceptors run now (a refusal completes
   * {@link #result()} at once); {@link #send} hands over the request. Decoding the request after
   * this keeps a client that no interceptor lets in from making the node parse its body.
   */
  static <Q, R> UnaryCall<Q, R> start(ServerMethodDefinition<Q, R> definition, Metadata headers, Attributes attributes,
      @Nullable String authority) {
    UnaryCall<Q, R> call = new UnaryCall<>(definition.getMethodDescriptor(), attributes, authority);
    try {
      call.listener = definition.getServerCallHandler().startCall(call, headers);
    } catch (RuntimeException e) {
      call.failed(e);
    }
    return call;
  }

  /** Hands the one request to the call and half-closes it (nothing happens once the call ended). */
  void send(Q request) {
    ServerCall.Listener<Q> l = listener;
    if (l == null || result.isDone()) {
      return;
    }
    try {
      l.onReady();
      l.onMessage(request);
      l.onHalfClose();
    } catch (RuntimeException e) {
      failed(e);
    }
  }

  /** gRPC's server answers a service that throws with UNKNOWN too. */
  private void failed(RuntimeException e) {
    log.warn("{} failed: {}", method.getFullMethodName(), e.toString());
    close(Status.UNKNOWN.withDescription("the service failed"), new Metadata());
  }

  CompletableFuture<Result> result() {
    return result;
  }

  /** The client gave up (deadline, closed connection): the service is told, the call ends with {@code status}. */
  void cancel(Status status) {
    cancelled = true;
    if (result.complete(new Result(status, null, new Metadata(), new Metadata()))) {
      ServerCall.Listener<Q> l = listener;
      if (l != null) {
        try {
          l.onCancel();
        } catch (RuntimeException e) {
          log.debug("onCancel of {} failed: {}", method.getFullMethodName(), e.toString());
        }
      }
    }
  }

  @Override
  public void request(int numMessages) {
    // the one request message is handed over at start
  }

  @Override
  public void sendHeaders(Metadata headers) {
    this.headers = headers;
  }

  @Override
  public void sendMessage(R message) {
    response = message;
  }

  @Override
  public void close(Status status, Metadata trailers) {
    Metadata sent = headers;
    if (result.complete(new Result(status, status.isOk() ? response : null, sent == null ? new Metadata() : sent,
        trailers)) && listener != null) {
      ServerCall.Listener<Q> l = listener;
      try {
        l.onComplete();
      } catch (RuntimeException e) {
        log.debug("onComplete of {} failed: {}", method.getFullMethodName(), e.toString());
      }
    }
  }

  @Override
  public boolean isCancelled() {
    return cancelled;
  }

  @Override
  public MethodDescriptor<Q, R> getMethodDescriptor() {
    return method;
  }

  @Override
  public Attributes getAttributes() {
    return attributes;
  }

  @Override
  public @Nullable String getAuthority() {
    return authority;
  }
}
