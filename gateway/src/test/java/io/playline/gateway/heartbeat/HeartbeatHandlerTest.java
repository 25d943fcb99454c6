package io.playline.gateway.heartbeat;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.embedded.EmbeddedChannel;
import io.playline.core.config.ConfigSource;
import io.playline.core.write.EventRules;
import io.playline.gateway.TestGateway;
import io.playline.gateway.budget.UserBudgets;
import io.playline.gateway.config.GatewayConfig;
import io.playline.gateway.push.RecordingTransport;
import io.playline.gateway.stream.ConnectionIdentity;
import io.playline.node.WriteLimitsConfig;
import io.playline.node.write.FlagCalendar;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.Error;
import io.playline.proto.v1.Heartbeat;
import io.playline.proto.v1.PlayEvent;
import io.playline.testing.ManualTime;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link HeartbeatHandler}'s wait after a budget refusal, on a budget clock the test moves: the wait
 * is measured on the clock the refusal's {@code retry_after_ms} was computed on. Only the refusal
 * path runs, so the step's {@link WritePath} is null here. The heartbeat step is built from its {@link HeartbeatPath} alone: no session, no Redis.
 */
class HeartbeatHandlerTest {
  private static final long UID = 11;
  private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
  private final AtomicLong now = new AtomicLong(TimeUnit.HOURS.toNanos(1));
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final UserBudgets budgets = new UserBudgets(1, 60, 60, 60, registry, now::get,
      uid -> CompletableFuture.completedFuture(0));
  private final ManualTime time = new ManualTime();
  private final FlagCalendar calendar = new FlagCalendar(ZoneOffset.UTC, time);
  private final List<Long> touched = new ArrayList<>();
  private final EmbeddedChannel channel = new EmbeddedChannel();
  private final RecordingTransport transport = new RecordingTransport(channel.eventLoop());
  private final EventWait wait = new EventWait(budgets::nanoTime);

  @AfterEach
  void close() {
    channel.finishAndReleaseAll();
  }

  private HeartbeatHandler handler() {
    // Only the paths that stop before the write path run here: it is left out.
    HeartbeatPath path = new HeartbeatPath(null, budgets, WriteLimitsConfig.from(ConfigSource.empty()),
        new EventRules(Duration.ofDays(1), Duration.ofMinutes(5)), calendar, time,
        GatewayConfig.from(ConfigSource.empty(), TestGateway.SECRET).maxUserRefusalsBeforeClose());
    return new HeartbeatHandler(transport, path, new ConnectionIdentity(UID, "s", "d", "test"), budgets.join(UID),
        wait, (seq, error) -> {
          throw new AssertionError("not expected: " + error);
        }, () -> touched.add(UID));
  }

  private static Heartbeat oneEvent() {
    return Heartbeat.newBuilder().addEvents(PlayEvent.newBuilder().setBusiness(Business.VIDEO).setOid(1)
        .setProgressMs(1000).setDurationMs(600_000).setEventTimeMs(System.currentTimeMillis())).build();
  }

  @Test
  void theWaitAfterARefusalRunsOnTheBudgetsClock() {
    HeartbeatHandler handler = handler();
    while (budgets.takeEvents(UID, 1) == null) {
      // spend the burst
    }
    handler.onHeartbeat(1, oneEvent());
    int retryAfterMs = transport.sent.get(0).getError().getRetryAfterMs();
    assertThat(retryAfterMs).isPositive();
    assertThat(wait.waiting()).as("the decode step sees the wait").isTrue();

    now.addAndGet(retryAfterMs * MS / 2);
    handler.onHeartbeat(2, oneEvent());
    Error whileWaiting = transport.sent.get(1).getError();
    assertThat(whileWaiting.getRetryAfterMs()).as("what is left of the wait, on the same clock")
        .isBetween(retryAfterMs / 2 - 1, retryAfterMs / 2 + 1);

    now.addAndGet(retryAfterMs * MS / 2 + MS);
    assertThat(wait.waiting()).as("the budget's clock passed the wait").isFalse();
  }

  @Test
  void eventsLeftUndecodedAreRefusedAsSentWhileWaitingWithoutTheBudget() {
    HeartbeatHandler handler = handler();
    handler.onWaitedEvents(4);
    Error refused = transport.sent.get(0).getError();
    assertThat(transport.sent.get(0).getSeq()).isEqualTo(4);
    assertThat(refused.getCode()).isEqualTo(Error.Code.RATE_LIMITED);
    assertThat(budgets.takeEvents(UID, 1)).as("the user's bucket was not touched").isNull();
    assertThat(touched).as("the user's push entry is kept fresh all the same").containsExactly(UID);
  }

  @Test
  void aKeepAliveIsAnsweredWithTodayOnlyWhenTheClientEchoedIt() {
    HeartbeatHandler handler = handler();
    String today = calendar.dayOf(time.millis()).iso();
    handler.onHeartbeat(1, Heartbeat.newBuilder().setFlagDate(today).build());
    handler.onHeartbeat(2, Heartbeat.newBuilder().setFlagDate("2001-01-01").build());
    assertThat(transport.sent).extracting(f -> f.getSeq() + ":" + f.getHeartbeatAck().getFlagDate())
        .containsExactly("1:" + today, "2:");
    assertThat(transport.sent).allSatisfy(f -> assertThat(f.getHeartbeatAck().getFirstToday()).isFalse());
    assertThat(touched).as("every heartbeat keeps the user's push entry fresh").containsExactly(UID, UID);
  }

  @Test
  void eventsOverTheLimitAreRefusedBeforeTheBudget() {
    HeartbeatHandler handler = handler();
    int max = WriteLimitsConfig.from(ConfigSource.empty()).maxEvents();
    Heartbeat.Builder tooMany = Heartbeat.newBuilder();
    for (int i = 0; i <= max; i++) {
      tooMany.addEvents(oneEvent().getEvents(0));
    }
    handler.onHeartbeat(1, tooMany.build());
    assertThat(transport.sent.get(0).getError().getCode()).isEqualTo(Error.Code.INVALID_ARGUMENT);
    assertThat(budgets.takeEvents(UID, 1)).as("the refused heartbeat spent nothing").isNull();
  }
}
