package io.playline.client;

import static org.awaitility.Awaitility.await;

import io.playline.proto.lite.v1.HistoryRecord;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;

/** A listener that records everything it is told, for assertions (thread-safe). */
final class Recorder implements PlaylineListener {
  record State(ConnectionState state, @Nullable Throwable cause) {}

  final List<State> states = new CopyOnWriteArrayList<>();
  final List<Ack> acks = new CopyOnWriteArrayList<>();
  final List<String> firstTodays = new CopyOnWriteArrayList<>();
  final List<HistoryRecord> syncs = new CopyOnWriteArrayList<>();
  final List<PlaylineException> errors = new CopyOnWriteArrayList<>();

  @Override
  public void onStateChanged(ConnectionState state, @Nullable Throwable cause) {
    states.add(new State(state, cause));
  }

  @Override
  public void onAck(Ack ack) {
    acks.add(ack);
  }

  @Override
  public void onFirstToday(String flagDate) {
    firstTodays.add(flagDate);
  }

  @Override
  public void onProgressSync(HistoryRecord record) {
    syncs.add(record);
  }

  @Override
  public void onError(PlaylineException error) {
    errors.add(error);
  }

  /** How many times the client reached {@code state}. */
  long count(ConnectionState state) {
    return states.stream().filter(s -> s.state() == state).count();
  }

  /** Waits (at most 20 s) until the client reached {@code state} {@code times} times in all. */
  void awaitCount(ConnectionState state, int times) {
    await(state + " x" + times).atMost(Duration.ofSeconds(20)).until(() -> count(state) >= times);
  }
}
