package io.playline.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.playline.proto.lite.v1.Business;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The first-today flag end to end: once per user per day across devices (a phone on OkHttp, a TV on
 * gRPC), and the echo that spares Redis, on every wire.
 */
@ExtendWith(RealRedisExtension.class)
class FirstTodayTest {
  @Test
  void twoClientsOfOneUserSharingNothingSeeFirstTodayExactlyOnce(RedisNamespace ns) throws Exception {
    long uid = 701;
    Recorder phoneEvents = new Recorder();
    Recorder tvEvents = new Recorder();
    try (GatewayFixture gateway = new GatewayFixture(ns);
        AbstractPlaylineClient phone = gateway.client(Wire.OKHTTP, uid, "phone").listener(phoneEvents).build();
        AbstractPlaylineClient tv = gateway.client(Wire.GRPC, uid, "tv").listener(tvEvents).build()) {
      phoneEvents.awaitCount(ConnectionState.CONNECTED, 1);
      tvEvents.awaitCount(ConnectionState.CONNECTED, 1);
      phone.report(Business.VIDEO, 1, 1_000, 600_000);
      tv.report(Business.VIDEO, 2, 2_000, 600_000);
      CompletableFuture.allOf(phone.flush(), tv.flush()).get(10, TimeUnit.SECONDS);
      phone.report(Business.VIDEO, 1, 3_000, 600_000);
      tv.report(Business.VIDEO, 2, 4_000, 600_000);
      CompletableFuture.allOf(phone.flush(), tv.flush()).get(10, TimeUnit.SECONDS);

      assertThat(phoneEvents.firstTodays.size() + tvEvents.firstTodays.size()).isEqualTo(1);
      assertThat(gateway.node().firstTodays).hasSize(1);
      String today = gateway.node().firstTodays.get(0).day();
      assertThat(phoneEvents.acks.get(phoneEvents.acks.size() - 1).flagDate()).isEqualTo(today);
      assertThat(tvEvents.acks.get(tvEvents.acks.size() - 1).flagDate()).isEqualTo(today);
    }
  }

  @ParameterizedTest
  @EnumSource(Wire.class)
  void fileFlagStoreLetsANewClientInstanceSkipTheRedisCheck(Wire wire, RedisNamespace ns, @TempDir Path dir)
      throws Exception {
    long uid = 702;
    Path flags = dir.resolve("playline-flags.txt");
    Recorder first = new Recorder();
    try (GatewayFixture gateway = new GatewayFixture(ns)) {
      try (AbstractPlaylineClient app = gateway.client(wire, uid, "desktop")
          .flagStore(FlagStore.file(flags)).listener(first).build()) {
        app.report(Business.ARTICLE, 9, 100, 0);
        app.flush().get(10, TimeUnit.SECONDS);
      }
      assertThat(first.firstTodays).hasSize(1);

      // The app restarts (a new client, nothing shared but the file) and meets a fresh gateway node
      // that has not seen the user today.
      gateway.stop();
      gateway.start(0, 0);
      Recorder second = new Recorder();
      try (AbstractPlaylineClient app = gateway.client(wire, uid, "desktop")
          .flagStore(FlagStore.file(flags)).listener(second).build()) {
        app.report(Business.ARTICLE, 9, 200, 0);
        app.report(Business.ARTICLE, 10, 50, 0);
        app.flush().get(10, TimeUnit.SECONDS);
      }
      assertThat(second.firstTodays).isEmpty();
      assertThat(gateway.node().counter("playline.first.today.redis.commands")).isZero();
      assertThat(gateway.node().counter("playline.first.today", "result", "echo_skip")).isPositive();
      assertThat(gateway.stored(uid, Business.ARTICLE, 9).getProgressMs()).isEqualTo(200);
    }
  }
}
