package io.playline.gateway.push;

import io.netty.util.concurrent.EventExecutor;
import io.playline.gateway.stream.StreamTransport;
import io.playline.proto.v1.Error;
import io.playline.proto.v1.ServerFrame;
import java.util.ArrayList;
import java.util.List;

/** A transport that records frames instead of writing them; confined to the test's executor. */
public final class RecordingTransport implements StreamTransport {
  private final EventExecutor executor;
  public final List<ServerFrame> sent = new ArrayList<>();
  boolean writable = true;

  public RecordingTransport(EventExecutor executor) {
    this.executor = executor;
  }

  @Override
  public EventExecutor executor() {
    return executor;
  }

  @Override
  public void send(ServerFrame frame) {
    sent.add(frame);
  }

  @Override
  public boolean isWritable() {
    return writable;
  }

  @Override
  public void closeWithError(long seq, Error error) {
    throw new AssertionError("not expected: " + error);
  }

  @Override
  public String remoteAddress() {
    return "test";
  }
}
