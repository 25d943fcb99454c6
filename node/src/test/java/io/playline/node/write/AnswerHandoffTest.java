package io.playline.node.write;

import static io.playline.node.write.BatcherHarness.LONG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.channel.DefaultEventLoop;
import io.netty.util.concurrent.EventExecutor;
import io.playline.core.write.WriteOutcome;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.HistoryRecord;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Where a written batch's answers run: a callback naming its loop (a connection's) is answered on
 * that loop, and all of one batch's answers for a loop travel as one task — one wake-up per loop
 * per batch, not one per connection.
 */
class AnswerHandoffTest {
  private final BatcherHarness h = new BatcherHarness();
  private final CountingLoop a = new CountingLoop();
  private final CountingLoop b = new CountingLoop();
  /**
   * Per submitted uid: whether its answer ran on the loop its callback named, or for a callback
   * naming none, on the batcher's own loop.
   */
  private final Map<Long, Boolean> onItsLoop = new ConcurrentHashMap<>();

  @AfterEach
  void stop() {
    h.close();
    a.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    b.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  @Test
  void aBatchHandsEachOtherLoopItsAnswersInOneTask() {
    h.start(512, LONG, true);
    h.submit(1); // leaves alone; the next ones gather behind its round trip
    for (long uid = 10; uid < 13; uid++) {
      submitOn(uid, a);
      submitOn(uid + 10, b);
    }
    submitOn(30, null); // no loop named: answered where the batch's answer arrives
    assertThat(h.batches()).isEqualTo(1);
    h.writer.answer(0);
    h.settle();
    assertThat(h.writer.heartbeats(1)).isEqualTo(7);
    h.writer.answer(1);
    h.settle();

    await().atMost(Duration.ofSeconds(10)).until(() -> onItsLoop.size() == 7);
    assertThat(onItsLoop).containsOnlyKeys(10L, 11L, 12L, 20L, 21L, 22L, 30L);
    assertThat(onItsLoop.values()).containsOnly(true);
    // Three answers each, one task each.
    assertThat(a.executes).hasValue(1);
    assertThat(b.executes).hasValue(1);
  }

  @Test
  void pushesFollowTheBatchsAnswersToEveryLoop() {
    // When a record of the batch is pushed on, each loop already has the batch's answers queued: a
    // device hears of another's progress after the ack of its own heartbeat in the same batch.
    Map<Long, Integer> tasksQueuedAtPush = new ConcurrentHashMap<>();
    h.applied = (uid, session, device, records) -> tasksQueuedAtPush.put(uid, a.executes.get() + b.executes.get());
    h.start(512, LONG, true);
    h.submit(1);
    submitOn(10, a);
    submitOn(20, b);
    h.writer.answer(0);
    h.settle();
    h.writer.answer(1);
    h.settle();
    await().atMost(Duration.ofSeconds(10)).until(() -> onItsLoop.size() == 2);
    assertThat(tasksQueuedAtPush).containsEntry(10L, 2).containsEntry(20L, 2);
  }

  @Test
  void anAnswerForALoopThatIsGoneIsStillGiven() {
    h.start(512, LONG, true);
    h.submit(1);
    submitOn(10, a);
    h.writer.answer(0);
    h.settle();
    a.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    h.writer.answer(1);
    h.settle();
    // The loop refused the task: the callback was told on the batcher's loop instead.
    await().atMost(Duration.ofSeconds(10)).until(() -> onItsLoop.containsKey(10L));
    assertThat(onItsLoop).containsEntry(10L, false);
  }

  private void submitOn(long uid, @Nullable EventExecutor loop) {
    HistoryRecord r = HistoryRecord.newBuilder().setUid(uid).setBusiness(Business.VIDEO).setOid(7)
        .setProgressMs(1_000).setViewTimeMs(System.currentTimeMillis()).build();
    PendingWrite.Callback callback = new PendingWrite.Callback() {
      @Override
      public void done(@Nullable WriteOutcome outcome, boolean firstToday, FlagCalendar.Day day,
          @Nullable Throwable error) {
        assertThat(error).isNull();
        onItsLoop.put(uid, loop == null ? Thread.currentThread().getName().startsWith("playline-heartbeat-batcher")
            : loop.inEventLoop());
      }

      @Override
      public @Nullable EventExecutor executor() {
        return loop;
      }
    };
    assertThat(h.batcher().submit(new PendingWrite(uid, List.of(r), false, "s", "d", "test", callback,
        h.batcher().nanoTime()))).isTrue();
    h.settle();
  }

  /** A loop that counts the tasks handed to it from other threads. */
  private static final class CountingLoop extends DefaultEventLoop {
    final AtomicInteger executes = new AtomicInteger();

    @Override
    public void execute(Runnable task) {
      executes.incrementAndGet();
      super.execute(task);
    }
  }
}
