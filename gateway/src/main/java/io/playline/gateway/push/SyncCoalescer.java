package io.playline.gateway.push;

import io.playline.gateway.stream.StreamTransport;
import io.playline.node.push.PushMetrics;
import io.playline.proto.v1.HistoryRecord;
import io.playline.proto.v1.ProgressSync;
import io.playline.proto.v1.ServerFrame;
import io.playline.time.Time;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Sends one receiving connection its {@code ProgressSync} frames, at most one per item per
 * window: a change to an item that had no sync within the window is sent at once (a device
 * follows a single move without delay); changes arriving while the window is open replace each
 * other, the latest by view time winning, and the survivor is sent when the window ends, which
 * opens the next window. An item whose window ends with nothing pending is forgotten.
 *
 * <p>Syncs are optional frames: when the transport is not writable one is dropped and counted,
 * never queued. Confined to the connection's executor.
 */
final class SyncCoalescer {
  /** An item as the store keys it ({@code business:oid}). */
  private record Item(int business, long oid) {
    static Item of(HistoryRecord r) {
      return new Item(r.getBusinessValue(), r.getOid());
    }
  }

  private static final class Window {
    @Nullable HistoryRecord pending;
    @Nullable ScheduledFuture<?> end;
  }

  private final StreamTransport transport;
  private final long windowNanos;
  private final PushMetrics metrics;
  private final Time time;
  private final Map<Item, Window> windows = new HashMap<>();
  private boolean closed;

  /** Windows of {@code window} by {@code time}. */
  SyncCoalescer(StreamTransport transport, Duration window, PushMetrics metrics, Time time) {
    this.transport = transport;
    this.windowNanos = window.toNanos();
    this.metrics = metrics;
    this.time = time;
  }

  /** A record moved; syncs it now or at the end of the item's open window. */
  void offer(HistoryRecord record) {
    if (closed) {
      return;
    }
    if (windowNanos == 0) {
      send(record);
      return;
    }
    Item item = Item.of(record);
    Window w = windows.get(item);
    if (w == null) {
      send(record);
      w = new Window();
      windows.put(item, w);
      w.end = schedule(item);
      return;
    }
    HistoryRecord pending = w.pending;
    if (pending != null) {
      metrics.syncCoalesced();
      if (record.getViewTimeMs() < pending.getViewTimeMs()) {
        return;
      }
    }
    w.pending = record;
  }

  private ScheduledFuture<?> schedule(Item item) {
    return time.schedule(transport.executor(), () -> windowEnded(item), windowNanos, TimeUnit.NANOSECONDS);
  }

  private void windowEnded(Item item) {
    Window w = windows.get(item);
    if (closed || w == null) {
      return;
    }
    HistoryRecord pending = w.pending;
    if (pending == null) {
      windows.remove(item);
      return;
    }
    w.pending = null;
    send(pending);
    w.end = schedule(item);
  }

  private void send(HistoryRecord record) {
    if (!transport.isWritable()) {
      metrics.syncDropped();
      return;
    }
    metrics.syncSent();
    transport.send(ServerFrame.newBuilder().setSeq(0).setSync(ProgressSync.newBuilder().setRecord(record)).build());
  }

  /** Items with an open window, for tests. */
  int openWindows() {
    return windows.size();
  }

  /** The connection is gone: cancels the windows; later offers are ignored. Idempotent. */
  void close() {
    closed = true;
    for (Window w : windows.values()) {
      ScheduledFuture<?> end = w.end;
      if (end != null) {
        end.cancel(false);
      }
    }
    windows.clear();
  }
}
