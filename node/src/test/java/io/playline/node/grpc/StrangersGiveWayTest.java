package io.playline.node.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Which stranger (a connection no call proved a credential on) gives way to a newcomer: over the
 * node's cap the oldest of the address holding the most strangers, over an address's cap that
 * address's oldest.
 */
class StrangersGiveWayTest {
  private final StrangersGiveWay strangers = new StrangersGiveWay();
  private final List<EmbeddedChannel> channels = new ArrayList<>();

  private static InetAddress address(int n) throws UnknownHostException {
    return InetAddress.getByName("10.0.0." + n); // a literal: no lookup
  }

  /** A connection from 10.0.0.{@code host}, counted a stranger. */
  private Channel stranger(int host) throws UnknownHostException {
    EmbeddedChannel channel = new EmbeddedChannel(new ChannelInboundHandlerAdapter());
    channels.add(channel);
    strangers.add(channel.pipeline().firstContext(), address(host));
    return channel;
  }

  private @Nullable Channel giveWay(int host, boolean sameAddress) throws UnknownHostException {
    StrangersGiveWay.Stranger s = strangers.giveWay(address(host), sameAddress);
    return s == null ? null : s.front.channel();
  }

  @AfterEach
  void close() {
    channels.forEach(EmbeddedChannel::finishAndReleaseAll);
  }

  @Test
  void overTheNodesCapTheOldestStrangerOfTheAddressHoldingTheMostGivesWay() throws Exception {
    Channel b1 = stranger(2);
    Channel a1 = stranger(1);
    Channel a2 = stranger(1);
    Channel b2 = stranger(2);
    Channel a3 = stranger(1);
    StrangersGiveWay.proven(a1); // a backend's: no longer a stranger
    Channel c1 = stranger(3);
    assertThat(giveWay(4, false)).as("a and b hold two strangers each: b's is older").isEqualTo(b1);
    assertThat(giveWay(4, false)).as("a holds two").isEqualTo(a2);
    assertThat(giveWay(4, false)).as("one each: the oldest").isEqualTo(b2);
    b2.close(); // closed after it gave way: nothing more to forget
    a3.close();
    assertThat(giveWay(4, false)).isEqualTo(c1);
    assertThat(giveWay(4, false)).isNull();
  }

  @Test
  void overAnAddresssCapItsOwnOldestStrangerGivesWay() throws Exception {
    Channel a1 = stranger(1);
    Channel b1 = stranger(2);
    Channel b2 = stranger(2);
    Channel b3 = stranger(2);
    assertThat(giveWay(1, true)).isEqualTo(a1);
    assertThat(giveWay(1, true)).as("a has no stranger left; b's are not taken").isNull();
    StrangersGiveWay.proven(b1);
    assertThat(giveWay(2, true)).isEqualTo(b2);
    assertThat(giveWay(2, true)).isEqualTo(b3);
    assertThat(giveWay(2, true)).isNull();
  }
}
