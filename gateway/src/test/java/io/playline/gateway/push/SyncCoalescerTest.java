package io.playline.gateway.push;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.embedded.EmbeddedChannel;
import io.playline.node.push.PushMetrics;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.HistoryRecord;
import io.playline.proto.v1.ServerFrame;
import io.playline.testing.ManualTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The per-connection sync window on a manual time, its timers run on an embedded event loop. */
class SyncCoalescerTest {
  private final EmbeddedChannel channel = new EmbeddedChannel();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final PushMetrics metrics = new PushMetrics(registry);
  private final RecordingTransport transport = new RecordingTransport(channel.eventLoop());
  private final ManualTime time = new ManualTime();
  private final SyncCoalescer syncs = new SyncCoalescer(transport, Duration.ofSeconds(1), metrics, time);

  @AfterEach
  void close() {
    channel.finishAndReleaseAll();
  }

  private static HistoryRecord record(long oid, long progress, long viewTime) {
    return HistoryRecord.newBuilder().setUid(1).setBusiness(Business.VIDEO).setOid(oid).setProgressMs(progress)
        .setViewTimeMs(viewTime).build();
  }

  private void advance(long millis) {
    time.advance(Duration.ofMillis(millis));
    channel.runPendingTasks();
  }

  private List<Long> sentProgress() {
    List<Long> progress = new ArrayList<>();
    for (ServerFrame f : transport.sent) {
      assertThat(f.getSeq()).isZero();
      progress.add(f.getSync().getRecord().getProgressMs());
    }
    return progress;
  }

  private double counter(String result) {
    return registry.get("playline.push.syncs").tag("result", result).counter().count();
  }

  @Test
  void firstChangeIsSentAtOnceAndTheBurstAfterItAtTheWindowEnd() {
    syncs.offer(record(1, 100, 1));
    assertThat(sentProgress()).containsExactly(100L);
    syncs.offer(record(1, 200, 2));
    syncs.offer(record(1, 300, 3));
    syncs.offer(record(1, 400, 4));
    advance(999);
    assertThat(sentProgress()).containsExactly(100L);
    advance(1);
    assertThat(sentProgress()).containsExactly(100L, 400L);
    assertThat(counter("coalesced")).isEqualTo(2);
    assertThat(counter("sent")).isEqualTo(2);
  }

  @Test
  void latestByViewTimeWinsEvenWhenItArrivesFirst() {
    syncs.offer(record(1, 100, 1));
    syncs.offer(record(1, 500, 50));
    syncs.offer(record(1, 300, 30));
    advance(1_000);
    assertThat(sentProgress()).containsExactly(100L, 500L);
  }

  @Test
  void itemsHaveTheirOwnWindowsAndAQuietWindowIsForgotten() {
    syncs.offer(record(1, 100, 1));
    syncs.offer(record(2, 700, 1));
    assertThat(sentProgress()).containsExactly(100L, 700L);
    assertThat(syncs.openWindows()).isEqualTo(2);
    advance(1_000);
    assertThat(syncs.openWindows()).isZero();
    syncs.offer(record(1, 150, 2));
    assertThat(sentProgress()).containsExactly(100L, 700L, 150L);
  }

  @Test
  void unwritableTransportDropsAndCountsSyncs() {
    transport.writable = false;
    syncs.offer(record(1, 100, 1));
    syncs.offer(record(1, 200, 2));
    advance(1_000);
    assertThat(transport.sent).isEmpty();
    assertThat(counter("dropped")).isEqualTo(2);
    transport.writable = true;
    advance(1_000);
    syncs.offer(record(1, 300, 3));
    assertThat(sentProgress()).containsExactly(300L);
  }

  @Test
  void closingCancelsPendingSyncs() {
    syncs.offer(record(1, 100, 1));
    syncs.offer(record(1, 200, 2));
    syncs.close();
    advance(1_000);
    syncs.offer(record(1, 300, 3));
    assertThat(sentProgress()).containsExactly(100L);
  }

  @Test
  void zeroWindowSendsEveryChange() {
    SyncCoalescer eager = new SyncCoalescer(transport, Duration.ZERO, metrics, time);
    eager.offer(record(1, 100, 1));
    eager.offer(record(1, 200, 2));
    assertThat(sentProgress()).containsExactly(100L, 200L);
  }
}
