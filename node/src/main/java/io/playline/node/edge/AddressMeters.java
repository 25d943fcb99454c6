package io.playline.node.edge;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.playline.node.edge.AddressBudgets.Admission;
import io.playline.node.edge.AddressBudgets.Refusal;
import io.playline.node.edge.AddressBudgets.Transport;
import io.playline.time.LogThrottle;
import io.playline.time.Time;
import java.net.InetAddress;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What {@link AddressBudgets} counts and logs: the counters of new connections admitted on
 * probation, refused, penalties begun and abuse cuts, by transport, and the refusal and penalty
 * lines, each at most one per {@value AddressBudgets#LOG_INTERVAL_SECONDS} s. Thread-safe.
 */
final class AddressMeters {
  private static final Logger log = LoggerFactory.getLogger(AddressBudgets.class);

  private final Map<Transport, Counter[]> refused = new EnumMap<>(Transport.class);
  private final Map<Transport, Counter> penalties = new EnumMap<>(Transport.class);
  /** New connections admitted on probation, by transport, indexed by {@link Admission#ordinal()}. */
  private final Map<Transport, Counter[]> onProbation = new EnumMap<>(Transport.class);
  /** Connections cut for abuse, by transport: [stranger, player]. */
  private final Map<Transport, Counter[]> cuts = new EnumMap<>(Transport.class);
  private final LogThrottle refusals;
  private final LogThrottle probations;

  AddressMeters(MeterRegistry registry, Time time) {
    this.refusals = new LogThrottle(time, Duration.ofSeconds(AddressBudgets.LOG_INTERVAL_SECONDS));
    this.probations = new LogThrottle(time, Duration.ofSeconds(AddressBudgets.LOG_INTERVAL_SECONDS));
    for (Transport t : Transport.values()) {
      Counter[] byReason = new Counter[Refusal.values().length];
      for (Refusal r : Refusal.values()) {
        byReason[r.ordinal()] = Counter.builder("playline.connections.refused").tag("transport", tag(t))
            .tag("reason", tag(r))
            .description("New player connections closed: admitted on probation (over the address's new-connection "
                + "rate: reason=rate; during its abuse penalty: reason=penalty) and not authenticated in time, or "
                + "the oldest of an address's unproven connections, closed for a newer one (reason=unproven)")
            .register(registry);
      }
      refused.put(t, byReason);
      Counter[] byAdmission = new Counter[Admission.values().length];
      for (Admission a : List.of(Admission.OVER_RATE, Admission.PENALTY)) {
        byAdmission[a.ordinal()] = Counter.builder("playline.connections.probation").tag("transport", tag(t))
            .tag("reason", a == Admission.OVER_RATE ? "rate" : "penalty")
            .description("New player connections admitted on probation (closed unless they authenticate as a player "
                + "within connection.abuse.probation.timeout): over their address's new-connection rate, or while "
                + "its abuse penalty runs")
            .register(registry);
      }
      onProbation.put(t, byAdmission);
      penalties.put(t, Counter.builder("playline.connections.penalized").tag("transport", tag(t))
          .description("Penalties begun: an address whose strangers' connections were cut for abuse "
              + "connection.abuse.strikes times within connection.abuse.window was put on probation")
          .register(registry));
      Counter[] by = new Counter[2];
      for (int i = 0; i < 2; i++) {
        by[i] = Counter.builder("playline.connections.abuse.cuts").tag("transport", tag(t))
            .tag("by", i == 0 ? "stranger" : "player")
            .description("Connections closed for abuse (a malformed frame, invalid framing, a ping or reset flood): "
                + "only that connection; a stranger's also counts a strike on its address")
            .register(registry);
      }
      cuts.put(t, by);
    }
  }

  private static String tag(Enum<?> e) {
    return e.name().toLowerCase(Locale.ROOT);
  }

  /** A new connection on {@code transport} was admitted on probation, {@code why} (not {@code FREE}). */
  void onProbation(Transport transport, Admission why) {
    onProbation.get(transport)[why.ordinal()].increment();
  }

  /** A new connection on {@code transport} was closed or refused for {@code refusal}. */
  void refused(Transport transport, Refusal refusal) {
    refused.get(transport)[refusal.ordinal()].increment();
  }

  /** A connection on {@code transport} was cut for abuse; {@code player}: it had authenticated. */
  void cut(Transport transport, boolean player) {
    cuts.get(transport)[player ? 1 : 0].increment();
  }

  /** A penalty of {@code address} began ({@code nanos} long, for {@code strikes} strikes within {@code window}). */
  void penalized(InetAddress address, Transport transport, long nanos, int strikes, Duration window) {
    penalties.get(transport).increment();
    long begun = probations.count();
    if (begun > 0) {
      log.info("{} address(es) put on probation since the last report (latest: {} for {} ms, {} of its strangers' "
          + "connections cut for abuse within {}); their connections must authenticate within "
          + "connection.abuse.probation.timeout meanwhile (counted in playline_connections_penalized_total)", begun,
          address, TimeUnit.NANOSECONDS.toMillis(nanos), strikes, window);
    }
  }

  /** Logs one refusal of {@code address} (its prefix key), in one line per interval at most. */
  void logRefusal(InetAddress address, Transport transport, Refusal refusal) {
    long count = refusals.count();
    if (count > 0) {
      log.info("{} new connection(s) refused at accept since the last report (latest: {} over {}, {}); counted in "
          + "playline_connections_refused_total, reported at most every {} s", count, address, tag(transport),
          switch (refusal) {
            case RATE -> "over connection.max.new.per.address.per.second and not authenticated within "
                + "connection.abuse.probation.timeout";
            case PENALTY -> "on probation (connection.abuse.penalty) and not authenticated within "
                + "connection.abuse.probation.timeout";
            case UNPROVEN -> "over connection.max.unproven.per.address: its oldest unproven connection closed";
          },
          AddressBudgets.LOG_INTERVAL_SECONDS);
    }
  }
}
