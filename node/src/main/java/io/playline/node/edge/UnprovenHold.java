package io.playline.node.edge;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import io.playline.time.Time;
import java.net.InetAddress;
import org.jspecify.annotations.Nullable;

/**
 * One connection's place among its address's unproven connections ({@link
 * AddressBudgets#admitUnproven}): given back once, when the connection proves itself ({@link
 * #proven(Channel)}: the WebSocket upgrade finished, the first gRPC stream opened) or closes,
 * whichever comes first; or evicted, closed to make room for a newer one of its address ({@link
 * AddressBudgets#admitUnproven(InetAddress, AddressBudgets.Transport, AddressBudgets.Evictable)}).
 * Kept on the channel; confined to its event loop but {@link #evict} (any thread).
 */
public final class UnprovenHold implements AddressBudgets.Evictable {
  private static final AttributeKey<UnprovenHold> KEY = AttributeKey.valueOf(UnprovenHold.class, "hold");

  private final AddressBudgets budgets;
  private final InetAddress address;
  private final Channel channel;
  private boolean given;

  private UnprovenHold(AddressBudgets budgets, InetAddress address, Channel channel) {
    this.budgets = budgets;
    this.address = address;
    this.channel = channel;
  }

  /**
   * Admits a new player connection of {@code address}: takes one from its new-connection budget
   * ({@link AddressBudgets#admit}) and counts it unproven, held until it proves itself or closes.
   * Null when admitted (and, when admitted on probation, given its deadline to authenticate: {@link
   * Probation}, by {@code time}), else the refusal (nothing held; the caller closes it).
   */
  public static AddressBudgets.@Nullable Refusal admit(Channel channel, AddressBudgets budgets, InetAddress address,
      AddressBudgets.Transport transport, Time time) {
    UnprovenHold hold = new UnprovenHold(budgets, address, channel);
    AddressBudgets.Refusal refusal = budgets.admitUnproven(address, transport, hold);
    if (refusal == null) {
      channel.attr(KEY).set(hold);
      channel.closeFuture().addListener(f -> hold.giveBack());
      Probation.track(channel, budgets, address, transport, budgets.admit(address, transport), time);
    }
    return refusal;
  }

  /** {@code channel} proved itself: its place, if it holds one, is given back. */
  public static void proven(Channel channel) {
    UnprovenHold hold = channel.attr(KEY).getAndSet(null);
    if (hold != null) {
      hold.giveBack();
    }
  }

  private void giveBack() {
    if (!given) {
      given = true;
      budgets.proven(address, this);
    }
  }

  /** Closed to make room for a newer unproven connection of the address (its place already given back). */
  @Override
  public void evict() {
    closeNow(channel);
  }

  /**
   * Closes {@code channel} from the front of its pipeline, past every handler's own close (gRPC's
   * would first send GOAWAY and wait up to 10 s for a PING the client may never answer).
   */
  static void closeNow(Channel channel) {
    io.netty.channel.ChannelHandlerContext first = channel.pipeline().firstContext();
    if (first != null) {
      first.close();
    } else {
      channel.close();
    }
  }
}
