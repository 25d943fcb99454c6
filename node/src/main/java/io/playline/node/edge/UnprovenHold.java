package io.playline.node.edge;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import java.net.InetAddress;
import org.jspecify.annotations.Nullable;

/**
 * One connection's place among its address's unproven connections ({@link
 * AddressBudgets#admitUnproven}): given back once, when the connection proves itself ({@link
 * #proven(Channel)}: the WebSocket upgrade finished, the first gRPC stream opened) or closes,
 * whichever comes first. Kept on the channel; confined to its event loop.
 */
public final class UnprovenHold {
  private static final AttributeKey<UnprovenHold> KEY = AttributeKey.valueOf(UnprovenHold.class, "hold");

  private final AddressBudgets budgets;
  private final InetAddress address;
  private boolean given;

  private UnprovenHold(AddressBudgets budgets, InetAddress address) {
    this.budgets = budgets;
    this.address = address;
  }

  /**
   * Admits a new player connection of {@code address}: takes one from its new-connection budget
   * ({@link AddressBudgets#admit}) and counts it unproven, held until it proves itself or closes.
   * Null when admitted (and, from an address on probation, given its deadline to authenticate:
   * {@link Probation}), else the refusal (nothing held; the caller closes it).
   */
  public static AddressBudgets.@Nullable Refusal admit(Channel channel, AddressBudgets budgets, InetAddress address,
      AddressBudgets.Transport transport) {
    AddressBudgets.Refusal refusal = budgets.admit(address, transport);
    if (refusal == null) {
      refusal = budgets.admitUnproven(address, transport);
    }
    if (refusal == null) {
      UnprovenHold hold = new UnprovenHold(budgets, address);
      channel.attr(KEY).set(hold);
      channel.closeFuture().addListener(f -> hold.giveBack());
      Probation.track(channel, budgets, address, transport, budgets.probationTimeout());
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
      budgets.proven(address);
    }
  }
}
