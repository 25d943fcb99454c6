package io.playline.client.internal;

import io.playline.proto.lite.v1.ClientFrame;
import io.playline.proto.lite.v1.ServerFrame;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** A {@link Transport} whose connections the test drives: open them, feed frames, drop them. */
final class FakeTransport implements Transport {
  final class FakeConnection implements Connection {
    final Listener listener;
    final List<ClientFrame> sent = new ArrayList<>();
    final long openedAtMs;
    boolean closeRequested;
    boolean ended;

    FakeConnection(Listener listener) {
      this.listener = listener;
      this.openedAtMs = loop.nowMs();
    }

    /** The handshake completed. */
    void open() {
      listener.onOpen();
      loop.runDue();
    }

    /** A frame from the gateway. */
    void receive(ServerFrame frame) {
      listener.onFrame(frame);
      loop.runDue();
    }

    /** The connection failed or the gateway closed it. */
    void drop(@Nullable Throwable cause) {
      if (!ended) {
        ended = true;
        listener.onClosed(cause);
        loop.runDue();
      }
    }

    ClientFrame lastSent() {
      return sent.get(sent.size() - 1);
    }

    @Override
    public void send(ClientFrame frame) {
      if (!ended && !closeRequested) {
        sent.add(frame);
      }
    }

    @Override
    public boolean isWritable() {
      return true;
    }

    @Override
    public void close() {
      if (!closeRequested && !ended) {
        closeRequested = true;
        loop.execute(() -> drop(null));
      }
    }
  }

  private final ManualLoop loop;
  final List<FakeConnection> connections = new ArrayList<>();

  FakeTransport(ManualLoop loop) {
    this.loop = loop;
  }

  @Override
  public Connection open(Listener listener) {
    FakeConnection c = new FakeConnection(listener);
    connections.add(c);
    return c;
  }

  FakeConnection last() {
    return connections.get(connections.size() - 1);
  }

  @Override
  public int liveConnections() {
    return (int) connections.stream().filter(c -> !c.ended).count();
  }

  @Override
  public void shutdown(long timeoutMs) {}
}
