package io.playline.node.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.playline.time.Time;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Which connection a full HTTP port closes for a newcomer: an idle one (no request being answered)
 * that proved no credential, of the address holding the most connections, the least recently
 * active of that address's.
 */
class HttpBudgetTest {
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final List<EmbeddedChannel> channels = new ArrayList<>();

  private HttpBudget budget(int maxConnections) {
    return new HttpBudget("test", "test.refused", new HttpBudget.Cap("test.max.connections", maxConnections), null,
        "test.request.timeout", Duration.ofMinutes(1), registry, Time.SYSTEM);
  }

  /** A connection accepted from 10.0.0.{@code host}, with the budget's request deadline, admitted. */
  private EmbeddedChannel connect(HttpBudget budget, int host) throws UnknownHostException {
    SocketAddress remote = new InetSocketAddress(InetAddress.getByName("10.0.0." + host), 40_000 + host);
    EmbeddedChannel channel = new EmbeddedChannel(budget.deadline()) {
      @Override
      protected SocketAddress remoteAddress0() {
        return remote;
      }
    };
    channels.add(channel);
    budget.admit(channel);
    return channel;
  }

  /** {@code channel} reads a whole request (and answers it unless {@code busy}). */
  private static void request(EmbeddedChannel channel, boolean busy) {
    channel.writeInbound(new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/"));
    if (!busy) {
      channel.writeOutbound(LastHttpContent.EMPTY_LAST_CONTENT);
    }
  }

  private double evicted() {
    return registry.get("test.refused").tag("reason", "evicted").counter().count();
  }

  @AfterEach
  void close() {
    channels.forEach(EmbeddedChannel::finishAndReleaseAll);
  }

  @Test
  void theAddressHoldingTheMostLosesItsLeastRecentlyActiveIdleUnprovenConnection() throws Exception {
    HttpBudget budget = budget(5);
    EmbeddedChannel a1 = connect(budget, 1);
    EmbeddedChannel a2 = connect(budget, 1);
    EmbeddedChannel a3 = connect(budget, 1);
    EmbeddedChannel b1 = connect(budget, 2);
    EmbeddedChannel b2 = connect(budget, 2);
    request(a1, true); // busy: a request being answered
    HttpBudget.proven(a2); // a backend's: never taken
    request(b1, false); // active again: behind b2

    EmbeddedChannel c1 = connect(budget, 3);
    assertThat(a3.isOpen()).as("the idle unproven one of the address holding three").isFalse();
    assertThat(List.of(a1, a2, b1, b2, c1)).allMatch(EmbeddedChannel::isOpen);

    EmbeddedChannel c2 = connect(budget, 3);
    assertThat(b2.isOpen()).as("of b and c, two each: b's least recently active").isFalse();
    assertThat(List.of(a1, a2, b1, c1, c2)).allMatch(EmbeddedChannel::isOpen);
    assertThat(evicted()).isEqualTo(2);
    assertThat(budget.open()).isEqualTo(5);
  }

  @Test
  void aConnectionAnsweredGivesWayAgainFromWhenItLastReadARequest() throws Exception {
    HttpBudget budget = budget(3);
    EmbeddedChannel a1 = connect(budget, 1);
    EmbeddedChannel a2 = connect(budget, 1);
    request(a1, true);
    EmbeddedChannel b1 = connect(budget, 2);
    request(b1, false); // read after a1's request
    a1.writeOutbound(LastHttpContent.EMPTY_LAST_CONTENT); // a1 answered: idle again, read before b1

    connect(budget, 3);
    assertThat(a2.isOpen()).as("a holds two: its least recently active").isFalse();
    connect(budget, 4);
    assertThat(a1.isOpen()).as("a, b, c one each: a1 read before b1").isFalse();
    assertThat(b1.isOpen()).isTrue();
  }

  @Test
  void aFullPortOfProvenOrBusyConnectionsRefusesTheNewcomer() throws Exception {
    HttpBudget budget = budget(2);
    EmbeddedChannel a1 = connect(budget, 1);
    EmbeddedChannel a2 = connect(budget, 1);
    HttpBudget.proven(a1);
    request(a2, true);
    EmbeddedChannel b1 = connect(budget, 2);
    assertThat(b1.isOpen()).isFalse();
    assertThat(List.of(a1, a2)).allMatch(EmbeddedChannel::isOpen);
    assertThat(evicted()).isZero();
    assertThat(registry.get("test.refused").tag("reason", "connections").counter().count()).isEqualTo(1);
    // Once a2's request is answered it may give way again.
    a2.writeOutbound(LastHttpContent.EMPTY_LAST_CONTENT);
    EmbeddedChannel b2 = connect(budget, 2);
    assertThat(b2.isOpen()).isTrue();
    assertThat(a2.isOpen()).isFalse();
  }
}
