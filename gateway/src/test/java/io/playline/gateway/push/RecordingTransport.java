package io.playline.gateway.push;

import io.netty.util.concurrent.EventExecutor;
import io.playline.core.write.WriteOutcome;
import io.playline.gateway.stream.AckEncoding;
import io.playline.gateway.stream.StreamTransport;
import io.playline.proto.v1.Error;
import io.playline.proto.v1.ServerFrame;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A transport that records frames instead of writing them, the error it is closed with and whether
 * it was told the player authenticated; confined to the test's executor.
 */
public final class RecordingTransport implements StreamTransport {
  private final EventExecutor executor;
  public final List<ServerFrame> sent = new ArrayList<>();
  /** How many of {@link #sent} came through {@link #sendAck}. */
  public int acks;
  /** The last frame it was closed with ({@link #closeWithError}), or null while open. */
  public @Nullable ServerFrame closedWith;
  public boolean authenticated;
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

  /** Records the ack as the message it is. */
  @Override
  public void sendAck(long seq, String flagDate, boolean firstToday, @Nullable WriteOutcome outcome) {
    acks++;
    sent.add(AckEncoding.frame(seq, flagDate, firstToday, outcome));
  }

  @Override
  public boolean isWritable() {
    return writable;
  }

  @Override
  public void closeWithError(long seq, Error error) {
    if (closedWith != null) {
      throw new AssertionError("closed twice: " + error);
    }
    closedWith = ServerFrame.newBuilder().setSeq(seq).setError(error).build();
  }

  @Override
  public String remoteAddress() {
    return "test";
  }

  @Override
  public void authenticated() {
    authenticated = true;
  }
}
