package io.playline.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.playline.proto.lite.v1.Business;
import io.playline.proto.lite.v1.HistoryRecord;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Continue on the TV where the phone stopped: the gateway pushes the phone's progress to the TV. */
@ExtendWith(RealRedisExtension.class)
class ProgressSyncTest {
  @Test
  void progressOnOneDeviceReachesTheUsersOtherDevice(RedisNamespace ns) throws Exception {
    long uid = 1_001;
    Recorder phoneEvents = new Recorder();
    Recorder tvEvents = new Recorder();
    try (GatewayFixture gateway = new GatewayFixture(ns);
        AbstractPlaylineClient phone = gateway.client(Wire.OKHTTP, uid, "phone").listener(phoneEvents).build();
        AbstractPlaylineClient tv = gateway.client(Wire.GRPC, uid, "tv").listener(tvEvents).build()) {
      phoneEvents.awaitCount(ConnectionState.CONNECTED, 1);
      tvEvents.awaitCount(ConnectionState.CONNECTED, 1);
      phone.report(Business.EPISODE, 77, 4, 123_000, 1_500_000);
      phone.flush().get(10, TimeUnit.SECONDS);

      await("sync on the tv").atMost(Duration.ofSeconds(10)).until(() -> !tvEvents.syncs.isEmpty());
      HistoryRecord synced = tvEvents.syncs.get(0);
      assertThat(synced.getUid()).isEqualTo(uid);
      assertThat(synced.getBusiness()).isEqualTo(Business.EPISODE);
      assertThat(synced.getOid()).isEqualTo(77);
      assertThat(synced.getSubId()).isEqualTo(4);
      assertThat(synced.getProgressMs()).isEqualTo(123_000);
      assertThat(synced.getDeviceId()).isEqualTo("phone");
      // The device that made the change is not told about it (checked after the tv heard).
      assertThat(phoneEvents.syncs).isEmpty();
      assertThat(tv.stats().eventsReported()).isZero();
    }
  }
}
