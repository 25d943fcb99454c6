package io.playline.bench.jmh;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.playline.core.write.BatchOutcome;
import io.playline.core.write.FirstTodayListener;
import io.playline.core.write.HistoryWriter;
import io.playline.core.write.WriteBatch;
import io.playline.core.write.WriteOutcome;
import io.playline.node.write.BatcherConfig;
import io.playline.node.write.FlagCalendar;
import io.playline.node.write.WriteBatcher;
import io.playline.node.write.PendingWrite;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.HistoryRecord;
import io.playline.time.Time;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The heartbeat batcher alone: a burst of {@value #BURST} one-event heartbeats submitted from the
 * benchmark thread (as event loops do), batched on the batcher's thread and "written" by an
 * in-memory {@link HistoryWriter} that answers at once; an invocation ends when every callback
 * fired. So the score is the batching path's cost per heartbeat (queue hand-off, batch assembly,
 * outcome delivery, metrics), without Redis. Uses two threads: the benchmark's and the batcher's.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class WriteBatcherBenchmark {
  static final int BURST = 1024; // two full batches of 512: no batch waits out the 2 ms max delay

  private WriteBatcher batcher = null;
  private final List<List<HistoryRecord>> records = new ArrayList<>();

  /** Answers every batch at once: every record updated, nobody first today. */
  static final class InMemoryWriter implements HistoryWriter {
    @Override
    public CompletionStage<BatchOutcome> write(WriteBatch batch) {
      List<WriteOutcome> outcomes = new ArrayList<>(batch.writes().size());
      for (int i = 0; i < batch.writes().size(); i++) {
        byte[] codes = new byte[batch.writes().get(i).records().size()];
        java.util.Arrays.fill(codes, WriteOutcome.UPDATED);
        outcomes.add(new WriteOutcome(false, codes));
      }
      return CompletableFuture.completedFuture(new BatchOutcome(outcomes, new boolean[batch.firstTodays().size()]));
    }
  }

  @Setup(Level.Trial)
  public void setUp() {
    batcher = new WriteBatcher(new BatcherConfig(512, Duration.ofMillis(2), true, 65_536, 8, Duration.ofSeconds(5)),
        new InMemoryWriter(), new FlagCalendar(ZoneOffset.UTC, Time.SYSTEM), FirstTodayListener.NONE, Time.SYSTEM,
        new SimpleMeterRegistry());
    long now = Time.SYSTEM.millis();
    for (int i = 0; i < BURST; i++) {
      records.add(List.of(HistoryRecord.newBuilder().setUid(1 + i).setBusiness(Business.VIDEO).setOid(1_000 + i)
          .setProgressMs(60_000).setDurationMs(2_700_000).setViewTimeMs(now).setDeviceId("d" + i)
          .setPlatform("bench").build()));
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    batcher.close();
  }

  @Benchmark
  @OperationsPerInvocation(BURST)
  public void submitBurstAndAwaitAcks() throws InterruptedException {
    CountDownLatch acked = new CountDownLatch(BURST);
    PendingWrite.Callback callback = (outcome, firstToday, day, error) -> acked.countDown();
    for (int i = 0; i < BURST; i++) {
      if (!batcher.submit(new PendingWrite(1 + i, records.get(i), false, "s", "d", "bench", callback,
          batcher.nanoTime()))) {
        throw new IllegalStateException("batcher queue full");
      }
    }
    if (!acked.await(10, TimeUnit.SECONDS)) {
      throw new IllegalStateException("acks did not arrive within 10 s");
    }
  }
}
