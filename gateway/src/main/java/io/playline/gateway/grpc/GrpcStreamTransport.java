package io.playline.gateway.grpc;

import io.grpc.stub.ServerCallStreamObserver;
import io.netty.util.concurrent.EventExecutor;
import io.playline.gateway.stream.StreamTransport;
import io.playline.node.errors.Errors;
import io.playline.node.errors.StatusMapper;
import io.playline.proto.v1.Error.Code;
import io.playline.proto.v1.Error;
import io.playline.proto.v1.ServerFrame;

/**
 * A {@code Gateway/Connect} stream as a {@link StreamTransport}.
 * Confined to the event loop chosen for the stream; the gRPC observer is only touched there.
 */
final class GrpcStreamTransport implements StreamTransport {
  private final ServerCallStreamObserver<ServerFrame> observer;
  private final EventExecutor executor;
  private final String remoteAddress;
  private final int maxUnsentBytes;
  private final Runnable onSlowConsumer;
  private final io.netty.channel.@org.jspecify.annotations.Nullable Channel connection;
  private boolean closed;
  /** Bytes handed to gRPC since the stream last reported ready (an upper bound of what waits unsent). */
  private long unsentBytes;

  /**
   * @param maxUnsentBytes connection.max.unsent.bytes: more sent while the stream is not ready
   *     (the client does not read) ends it with RESOURCE_EXHAUSTED (SLOW_CONSUMER)
   * @param onSlowConsumer counts and logs such an end
   * @param connection the stream's HTTP/2 connection (null: unknown), told when the player authenticates
   */
  GrpcStreamTransport(ServerCallStreamObserver<ServerFrame> observer, EventExecutor executor, String remoteAddress,
      int maxUnsentBytes, Runnable onSlowConsumer, io.netty.channel.@org.jspecify.annotations.Nullable Channel connection) {
    this.connection = connection;
    this.observer = observer;
    this.executor = executor;
    this.remoteAddress = remoteAddress;
    this.maxUnsentBytes = maxUnsentBytes;
    this.onSlowConsumer = onSlowConsumer;
  }

  /** gRPC reports the stream ready again: what was queued has gone out. */
  void ready() {
    unsentBytes = 0;
  }

  @Override
  public EventExecutor executor() {
    return executor;
  }

  @Override
  public void send(ServerFrame frame) {
    if (closed || observer.isCancelled()) {
      return;
    }
    if (!observer.isReady()) {
      unsentBytes += frame.getSerializedSize();
      if (unsentBytes > maxUnsentBytes) {
        closed = true;
        onSlowConsumer.run();
        observer.onError(StatusMapper.toStatus(Errors.of(Code.SLOW_CONSUMER, "the client stopped reading: more than "
            + maxUnsentBytes + " bytes unsent")).asRuntimeException());
        return;
      }
    }
    observer.onNext(frame);
  }

  @Override
  public boolean isWritable() {
    return observer.isReady();
  }

  @Override
  public void closeWithError(long seq, Error error) {
    if (closed) {
      return;
    }
    closed = true;
    if (observer.isCancelled()) {
      return;
    }
    observer.onNext(Errors.frame(seq, error));
    observer.onError(StatusMapper.toStatus(error).asRuntimeException());
  }

  /** The client went away or half-closed; nothing more may be written. */
  void markClosed(boolean completeNormally) {
    if (!closed) {
      closed = true;
      if (completeNormally && !observer.isCancelled()) {
        observer.onCompleted();
      }
    }
  }

  @Override
  public String remoteAddress() {
    return remoteAddress;
  }


  @Override
  public void authenticated() {
    if (connection != null) {
      io.playline.node.edge.Probation.authenticated(connection);
    }
  }
}
