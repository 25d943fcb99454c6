package io.playline.gateway.session;

import io.netty.util.concurrent.EventExecutor;
import io.playline.core.write.WriteOutcome;
import io.playline.gateway.stream.StreamTransport;
import io.playline.proto.v1.Error;
import io.playline.proto.v1.ServerFrame;
import org.jspecify.annotations.Nullable;

/**
 * The one place a session's error frames are counted ({@code playline_errors_total} by code):
 * every frame the session, its handlers and the node's drain send goes through here, so no site
 * that answers with an error can forget to count it. Once the connection is closed (a closing
 * error, or {@link #closed()}) nothing more is sent, so nothing more is counted: a closing error is
 * counted once, and a drain that reaches a connection already gone counts nothing.
 */
final class ErrorCountingTransport implements StreamTransport {
  private final StreamTransport delegate;
  private final GatewayMetrics metrics;
  /** Confined to {@link #executor()}. */
  private boolean closed;

  ErrorCountingTransport(StreamTransport delegate, GatewayMetrics metrics) {
    this.delegate = delegate;
    this.metrics = metrics;
  }

  @Override
  public EventExecutor executor() {
    return delegate.executor();
  }

  /** The connection closed: what is sent from now on is dropped by the transport, and not counted. */
  void closed() {
    closed = true;
  }

  @Override
  public void send(ServerFrame frame) {
    if (!closed && frame.hasError()) {
      metrics.error(frame.getError().getCode());
    }
    delegate.send(frame);
  }

  /** An ack is never an error: nothing to count. */
  @Override
  public void sendAck(long seq, String flagDate, boolean firstToday, @Nullable WriteOutcome outcome) {
    delegate.sendAck(seq, flagDate, firstToday, outcome);
  }

  @Override
  public boolean isWritable() {
    return delegate.isWritable();
  }

  @Override
  public void closeWithError(long seq, Error error) {
    if (closed) {
      return;
    }
    closed = true;
    metrics.error(error.getCode());
    delegate.closeWithError(seq, error);
  }

  @Override
  public String remoteAddress() {
    return delegate.remoteAddress();
  }

  @Override
  public void authenticated() {
    delegate.authenticated();
  }
}
