package io.playline.gateway.session;

import io.netty.util.concurrent.EventExecutor;
import io.playline.gateway.GatewayMetrics;
import io.playline.proto.v1.Error;
import io.playline.proto.v1.ServerFrame;

/**
 * The one place a session's error frames are counted ({@code playline_errors_total} by code):
 * every frame the session and its handlers send goes through here, so no site that answers with an
 * error can forget to count it, and a closing error is counted once.
 */
final class ErrorCountingTransport implements StreamTransport {
  private final StreamTransport delegate;
  private final GatewayMetrics metrics;

  ErrorCountingTransport(StreamTransport delegate, GatewayMetrics metrics) {
    this.delegate = delegate;
    this.metrics = metrics;
  }

  @Override
  public EventExecutor executor() {
    return delegate.executor();
  }

  @Override
  public void send(ServerFrame frame) {
    if (frame.hasError()) {
      metrics.error(frame.getError().getCode());
    }
    delegate.send(frame);
  }

  @Override
  public boolean isWritable() {
    return delegate.isWritable();
  }

  @Override
  public void closeWithError(long seq, Error error) {
    metrics.error(error.getCode());
    delegate.closeWithError(seq, error);
  }

  @Override
  public String remoteAddress() {
    return delegate.remoteAddress();
  }
}
