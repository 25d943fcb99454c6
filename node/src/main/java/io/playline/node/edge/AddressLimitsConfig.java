package io.playline.node.edge;

import io.playline.core.config.ConfigException;
import io.playline.core.config.ConfigSource;
import java.time.Duration;

/**
 * What one remote address may make the player ports spend on new connections, both transports
 * together (see {@link io.playline.node.edge.AddressBudgets}); the ranges are the settings'.
 *
 * @param newPerSecond new connections per second ({@code connection.max.new.per.address.per.second})
 * @param newBurst new connections at once before the rate applies ({@code connection.max.new.per.address.burst})
 * @param abusePenalty how long an address cut for abuse is refused ({@code connection.abuse.penalty}; 0 = off)
 * @param abusePenaltyMax the longest penalty, reached by doubling for a repeat offender ({@code
 *     connection.abuse.penalty.max}; at least {@code abusePenalty})
 * @param maxTracked addresses remembered at most ({@code connection.max.tracked.addresses})
 * @param maxUnproven connections of one address not yet upgraded or without a first stream, at most
 *     ({@code connection.max.unproven.per.address})
 * @param earlyResets resets of streams not yet answered, all the address's gRPC connections together,
 *     per {@code resetWindow} ({@code grpc.max.early.resets.per.address})
 * @param resetWindow see {@code earlyResets} ({@code grpc.rst.window})
 * @param prefixes what makes one address ({@code connection.address.prefix.ipv4}, {@code .ipv6})
 * @param abuseStrikes strangers' connections of one address cut for abuse within {@code abuseWindow}
 *     that start its penalty ({@code connection.abuse.strikes})
 * @param abuseWindow see {@code abuseStrikes} ({@code connection.abuse.window})
 * @param probationTimeout how long a new connection of a penalized address has to authenticate as a
 *     player ({@code connection.abuse.probation.timeout})
 */
public record AddressLimitsConfig(int newPerSecond, int newBurst, Duration abusePenalty, Duration abusePenaltyMax,
    int maxTracked, int maxUnproven, int earlyResets, Duration resetWindow, AddressPrefixes prefixes,
    int abuseStrikes, Duration abuseWindow, Duration probationTimeout) {

  public AddressLimitsConfig {
    EdgeSettings.MAX_NEW_CONNECTIONS_PER_ADDRESS.check(newPerSecond);
    EdgeSettings.NEW_CONNECTIONS_PER_ADDRESS_BURST.check(newBurst);
    EdgeSettings.ABUSE_PENALTY.check(abusePenalty);
    EdgeSettings.ABUSE_PENALTY_MAX.check(abusePenaltyMax);
    if (abusePenaltyMax.compareTo(abusePenalty) < 0) {
      throw new ConfigException("connection.abuse.penalty.max: " + abusePenaltyMax
          + " (expected: at least connection.abuse.penalty " + abusePenalty + ")");
    }
    EdgeSettings.MAX_TRACKED_ADDRESSES.check(maxTracked);
    EdgeSettings.MAX_UNPROVEN_PER_ADDRESS.check(maxUnproven);
    EdgeSettings.GRPC_MAX_EARLY_RESETS_PER_ADDRESS.check(earlyResets);
    EdgeSettings.GRPC_RST_WINDOW.check(resetWindow);
    EdgeSettings.ABUSE_STRIKES.check(abuseStrikes);
    EdgeSettings.ABUSE_WINDOW.check(abuseWindow);
    EdgeSettings.PROBATION_TIMEOUT.check(probationTimeout);
  }

  /** With the defaults of the prefixes, the strikes, their window and the probation. */
  public AddressLimitsConfig(int newPerSecond, int newBurst, Duration abusePenalty, Duration abusePenaltyMax,
      int maxTracked, int maxUnproven, int earlyResets, Duration resetWindow) {
    this(newPerSecond, newBurst, abusePenalty, abusePenaltyMax, maxTracked, maxUnproven, earlyResets, resetWindow,
        AddressPrefixes.DEFAULT, EdgeSettings.ABUSE_STRIKES.defaultValue().orElseThrow(), EdgeSettings.ABUSE_WINDOW.defaultValue().orElseThrow(),
        EdgeSettings.PROBATION_TIMEOUT.defaultValue().orElseThrow());
  }

  /** Reads and validates the per-address connection limits. */
  public static AddressLimitsConfig from(ConfigSource c) {
    Duration penalty = EdgeSettings.ABUSE_PENALTY.read(c);
    Duration longest = EdgeSettings.ABUSE_PENALTY_MAX_DEFAULT;
    return new AddressLimitsConfig(
        EdgeSettings.MAX_NEW_CONNECTIONS_PER_ADDRESS.read(c),
        EdgeSettings.NEW_CONNECTIONS_PER_ADDRESS_BURST.read(c),
        penalty,
        EdgeSettings.ABUSE_PENALTY_MAX.read(c, penalty.compareTo(longest) > 0 ? penalty : longest),
        EdgeSettings.MAX_TRACKED_ADDRESSES.read(c),
        EdgeSettings.MAX_UNPROVEN_PER_ADDRESS.read(c),
        EdgeSettings.GRPC_MAX_EARLY_RESETS_PER_ADDRESS.read(c),
        EdgeSettings.GRPC_RST_WINDOW.read(c),
        AddressPrefixes.from(c),
        EdgeSettings.ABUSE_STRIKES.read(c),
        EdgeSettings.ABUSE_WINDOW.read(c),
        EdgeSettings.PROBATION_TIMEOUT.read(c));
  }
}
