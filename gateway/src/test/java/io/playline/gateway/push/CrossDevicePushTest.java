package io.playline.gateway.push;

import static io.playline.gateway.push.PushExpectations.expectNothingPending;
import static io.playline.gateway.push.PushExpectations.expectSync;
import static io.playline.gateway.push.PushExpectations.heartbeatAcked;
import static io.playline.testing.Frames.event;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.playline.proto.v1.Business;
import io.playline.proto.v1.HistoryRecord;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import io.playline.testing.WsPlayerClient;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Progress syncs between a user's devices, on one node and across two real nodes sharing one Redis. */
@ExtendWith(RealRedisExtension.class)
class CrossDevicePushTest {
  private static final AtomicLong UIDS = new AtomicLong(70_000);
  private static final Duration WAIT = Duration.ofSeconds(10);

  private PushNode a;
  private PushNode b;
  private final long now = System.currentTimeMillis();

  @BeforeEach
  void startNodes(RedisNamespace ns) {
    a = new PushNode(ns, "node-a", Map.of());
    b = new PushNode(ns, "node-b", Map.of());
  }

  @AfterEach
  void stopNodes() {
    if (a != null) {
      a.close();
    }
    if (b != null) {
      b.close();
    }
  }

  private void awaitRegistered(long uid, String... nodes) {
    await().atMost(WAIT).untilAsserted(() -> assertThat(a.registeredNodes(uid)).containsExactlyInAnyOrder(nodes));
  }

  @Test
  void phoneHeartbeatSyncsTvOnAnotherNodeButNotThePhone() throws Exception {
    long uid = UIDS.incrementAndGet();
    try (WsPlayerClient phone = a.connect(uid, "phone"); WsPlayerClient tv = b.connect(uid, "tv")) {
      awaitRegistered(uid, "node-a", "node-b");
      heartbeatAcked(phone, 2, event(42, 61_000, now));

      HistoryRecord synced = expectSync(tv);
      assertThat(synced.getUid()).isEqualTo(uid);
      assertThat(synced.getBusiness()).isEqualTo(Business.VIDEO);
      assertThat(synced.getOid()).isEqualTo(42);
      assertThat(synced.getProgressMs()).isEqualTo(61_000);
      assertThat(synced.getDeviceId()).isEqualTo("phone");
      // The TV has its sync, so routing is done: had the phone been sent one, it would precede this ack.
      expectNothingPending(phone, 3);
      expectNothingPending(tv, 2);
      // Node A counts a publish when Redis answers it, which may come after the TV got its sync.
      await().atMost(WAIT).until(() -> a.routes() == 1);
      assertThat(a.routedRemote()).isEqualTo(1);
      assertThat(b.receivedRemote()).isEqualTo(1);
    }
  }

  @Test
  void devicesOnOneNodeSyncEachOtherWithoutPublishing() throws Exception {
    long uid = UIDS.incrementAndGet();
    try (WsPlayerClient phone = a.connect(uid, "phone"); WsPlayerClient tv = a.connect(uid, "tv")) {
      awaitRegistered(uid, "node-a");
      heartbeatAcked(phone, 2, event(7, 1_000, now));
      assertThat(expectSync(tv).getProgressMs()).isEqualTo(1_000);
      heartbeatAcked(tv, 2, event(8, 2_000, now));
      assertThat(expectSync(phone).getOid()).isEqualTo(8);
      expectNothingPending(phone, 3);
      expectNothingPending(tv, 3);
      await().atMost(WAIT).until(() -> a.routes() >= 2);
      assertThat(a.routedRemote()).isZero();
    }
  }

  @Test
  void anotherConnectionOfTheSendingDeviceGetsNoEcho() throws Exception {
    long uid = UIDS.incrementAndGet();
    try (WsPlayerClient phone = a.connect(uid, "phone");
        WsPlayerClient phoneAgain = b.connect(uid, "phone");
        WsPlayerClient tv = b.connect(uid, "tv")) {
      awaitRegistered(uid, "node-a", "node-b");
      heartbeatAcked(phone, 2, event(5, 9_000, now));
      assertThat(expectSync(tv).getProgressMs()).isEqualTo(9_000);
      expectNothingPending(phoneAgain, 2);
      expectNothingPending(phone, 3);
    }
  }

  @Test
  void userWithOneDeviceGetsNothingAndNothingIsPublished() throws Exception {
    long uid = UIDS.incrementAndGet();
    try (WsPlayerClient phone = a.connect(uid, "phone")) {
      awaitRegistered(uid, "node-a");
      double routes = a.routes();
      heartbeatAcked(phone, 2, event(3, 4_000, now));
      await().atMost(WAIT).until(() -> a.routes() > routes);
      expectNothingPending(phone, 3);
      assertThat(a.routedRemote()).isZero();
      assertThat(a.syncs("sent") + b.syncs("sent")).isZero();
    }
  }

  @Test
  void disconnectRemovesTheNodeSoItIsNoLongerPublishedTo() throws Exception {
    long uid = UIDS.incrementAndGet();
    try (WsPlayerClient phone = a.connect(uid, "phone")) {
      WsPlayerClient tv = b.connect(uid, "tv");
      awaitRegistered(uid, "node-a", "node-b");
      heartbeatAcked(phone, 2, event(9, 1_000, now));
      expectSync(tv);
      await().atMost(WAIT).until(() -> a.routes() == 1);
      assertThat(a.routedRemote()).isEqualTo(1);

      tv.close();
      awaitRegistered(uid, "node-a");
      double routes = a.routes();
      heartbeatAcked(phone, 3, event(9, 2_000, now + 1));
      await().atMost(WAIT).until(() -> a.routes() > routes);
      assertThat(a.routedRemote()).isEqualTo(1);
      assertThat(b.receivedRemote()).isEqualTo(1);
    }
    await().atMost(WAIT).untilAsserted(() -> assertThat(a.registeredNodes(uid)).isEmpty());
  }

  @Test
  void burstOfHeartbeatsIsCoalescedIntoFewSyncsEndingWithTheLatest() throws Exception {
    long uid = UIDS.incrementAndGet();
    int beats = 10;
    try (WsPlayerClient phone = a.connect(uid, "phone"); WsPlayerClient tv = b.connect(uid, "tv")) {
      awaitRegistered(uid, "node-a", "node-b");
      for (int i = 1; i <= beats; i++) {
        heartbeatAcked(phone, 1 + i, event(11, i * 1_000L, now + i));
      }
      int syncs = 0;
      HistoryRecord last;
      do {
        last = expectSync(tv);
        syncs++;
      } while (last.getProgressMs() != beats * 1_000L && syncs < beats);

      assertThat(last.getProgressMs()).isEqualTo(beats * 1_000L);
      // The first change goes out at once, the rest of the burst at the end of the 1 s window(s).
      assertThat(syncs).isBetween(1, 4);
      assertThat(b.syncs("coalesced")).isGreaterThanOrEqualTo(beats - 4);
      assertThat(b.syncs("sent")).isEqualTo(syncs);
      expectNothingPending(tv, 2);
    }
  }

  @Test
  void backendPushReachesEveryDeviceOnEveryNode() throws Exception {
    long uid = UIDS.incrementAndGet();
    try (WsPlayerClient phone = a.connect(uid, "phone");
        WsPlayerClient laptop = a.connect(uid, "laptop");
        WsPlayerClient tv = b.connect(uid, "tv")) {
      awaitRegistered(uid, "node-a", "node-b");
      HistoryRecord record = HistoryRecord.newBuilder().setBusiness(Business.COMIC).setOid(77).setSubId(3)
          .setProgressMs(12).setViewTimeMs(now).setDeviceId("comic-server").build();

      b.server.push().push(uid, record).toCompletableFuture().get(10, TimeUnit.SECONDS);

      HistoryRecord expected = record.toBuilder().setUid(uid).build();
      assertThat(expectSync(phone)).isEqualTo(expected);
      assertThat(expectSync(laptop)).isEqualTo(expected);
      assertThat(expectSync(tv)).isEqualTo(expected);
    }
  }
}
