package io.playline.gateway.ws;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.playline.core.config.ConfigSource;
import io.playline.node.edge.AddressBudgets;
import io.playline.node.edge.AddressLimitsConfig;
import io.playline.node.edge.UnprovenHold;
import io.playline.testing.ManualTime;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The upgrade deadline on a manual time: a connection that has not upgraded within {@code
 * handshake.timeout} (its deadline falls in the last quarter) is closed and counted, one that
 * upgraded in time is not, gives back its unproven place and loses the step, and a connection
 * that closes first leaves no timer behind.
 */
class UpgradeDeadlineTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(8);

  private final ManualTime time = new ManualTime();
  private final AtomicInteger timeouts = new AtomicInteger();
  private final UpgradeDeadline deadline = new UpgradeDeadline(TIMEOUT, time, timeouts::incrementAndGet);
  private final Seen next = new Seen();
  private final EmbeddedChannel channel = new EmbeddedChannel(deadline, next);

  /** The events the steps after the deadline see. */
  private static final class Seen extends ChannelInboundHandlerAdapter {
    final List<Object> events = new ArrayList<>();

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
      events.add(evt);
    }
  }

  @AfterEach
  void close() {
    channel.finishAndReleaseAll();
  }

  /** Moves time on by {@code by} and runs what became due on the channel's loop. */
  private void advance(Duration by) {
    time.advance(by);
    channel.runPendingTasks();
  }

  @Test
  void aConnectionThatHasNotUpgradedByTheTimeoutIsClosedAndCounted() {
    // The deadline is spread over the last quarter of the timeout: nothing happens before it.
    advance(TIMEOUT.multipliedBy(3).dividedBy(4).minusNanos(1));
    assertThat(channel.isOpen()).isTrue();
    assertThat(timeouts).hasValue(0);
    advance(TIMEOUT.dividedBy(4).plusNanos(1));
    assertThat(channel.isOpen()).isFalse();
    assertThat(timeouts).hasValue(1);
  }

  @Test
  void anUpgradeInTimeCancelsTheDeadlineGivesBackItsPlaceAndRemovesTheStep() {
    AddressBudgets budgets = new AddressBudgets(AddressLimitsConfig.from(ConfigSource.empty()),
        new SimpleMeterRegistry(), time);
    assertThat(UnprovenHold.admit(channel, budgets, InetAddress.getLoopbackAddress(), AddressBudgets.Transport.WS,
        time)).as("admitted").isNull();
    assertThat(budgets.unproven()).isEqualTo(1);

    channel.pipeline().fireUserEventTriggered(ConnectionAdmissionTest.UPGRADED);
    assertThat(next.events).as("passed on").containsExactly(ConnectionAdmissionTest.UPGRADED);
    assertThat(budgets.unproven()).as("its place given back while it stays open").isZero();
    assertThat(channel.pipeline().get(UpgradeDeadline.class)).isNull();

    advance(TIMEOUT);
    assertThat(channel.isOpen()).isTrue();
    assertThat(timeouts).hasValue(0);
  }

  @Test
  void aConnectionClosedBeforeItsDeadlineLeavesNoTimer() {
    assertThat(time.pending()).isEqualTo(1);
    channel.close();
    assertThat(time.pending()).isZero();
    advance(TIMEOUT);
    assertThat(timeouts).hasValue(0);
  }
}
