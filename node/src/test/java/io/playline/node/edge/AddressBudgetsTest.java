package io.playline.node.edge;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.playline.node.edge.AddressBudgets.Admission;
import io.playline.node.edge.AddressBudgets.Refusal;
import io.playline.node.edge.AddressBudgets.Transport;
import io.playline.testing.ManualTime;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@link AddressBudgets} on a clock the test moves: the burst and rate, the penalty, and the bounded memory. */
class AddressBudgetsTest {
  private static final long SECOND = TimeUnit.SECONDS.toNanos(1);
  private final ManualTime time = new ManualTime();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  private void advance(long nanos) {
    time.advance(Duration.ofNanos(nanos));
  }

  private AddressBudgets budgets(int perSecond, int burst, Duration penalty, int maxTracked) {
    return budgets(perSecond, burst, penalty, penalty, maxTracked);
  }

  private AddressBudgets budgets(int perSecond, int burst, Duration penalty, Duration penaltyMax, int maxTracked) {
    return budgets(perSecond, burst, penalty, penaltyMax, maxTracked, 1);
  }

  private AddressBudgets budgets(int perSecond, int burst, Duration penalty, Duration penaltyMax, int maxTracked,
      int strikes) {
    return new AddressBudgets(new AddressLimitsConfig(perSecond, burst, penalty, penaltyMax, maxTracked, 1_000, 50,
        Duration.ofSeconds(10), AddressPrefixes.DEFAULT, strikes, Duration.ofSeconds(60), Duration.ofSeconds(3)),
        registry, time);
  }

  @Test
  void unprovenConnectionsAreCappedPerAddressUntilProvenOrClosed() throws Exception {
    AddressBudgets b = new AddressBudgets(new AddressLimitsConfig(100, 100, Duration.ZERO, Duration.ZERO, 100, 2, 50,
        Duration.ofSeconds(10)), registry, time);
    InetAddress a = address(1);
    assertThat(b.admitUnproven(a, Transport.WS)).isNull();
    assertThat(b.admitUnproven(a, Transport.GRPC)).isNull();
    assertThat(b.admitUnproven(a, Transport.WS)).isEqualTo(Refusal.UNPROVEN);
    assertThat(b.admitUnproven(address(2), Transport.WS)).isNull();
    assertThat(b.unproven()).isEqualTo(3);
    b.proven(a);
    assertThat(b.admitUnproven(a, Transport.GRPC)).isNull();
    assertThat(b.admitUnproven(a, Transport.GRPC)).isEqualTo(Refusal.UNPROVEN);
    b.proven(a);
    b.proven(a);
    b.proven(address(2));
    assertThat(b.unproven()).isZero();
    assertThat(registry.get("playline.connections.refused").tags("transport", "grpc", "reason", "unproven").counter()
        .count()).isEqualTo(1);
  }

  @Test
  void atItsCapAnAddressesOldestUnprovenConnectionGivesWayToANewOne() throws Exception {
    AddressBudgets b = new AddressBudgets(new AddressLimitsConfig(100, 100, Duration.ZERO, Duration.ZERO, 100, 2, 50,
        Duration.ofSeconds(10)), registry, time);
    InetAddress a = address(1);
    List<String> evicted = new ArrayList<>();
    AddressBudgets.Evictable first = () -> evicted.add("first");
    AddressBudgets.Evictable second = () -> evicted.add("second");
    AddressBudgets.Evictable third = () -> evicted.add("third");
    assertThat(b.admitUnproven(a, Transport.WS, first)).isNull();
    assertThat(b.admitUnproven(a, Transport.GRPC, second)).isNull();
    assertThat(b.admitUnproven(a, Transport.WS, third)).as("admitted: the oldest gives way").isNull();
    assertThat(evicted).containsExactly("first");
    assertThat(b.unproven()).isEqualTo(2);
    b.proven(a, first); // its close, after the eviction: its place was given back already
    assertThat(b.unproven()).isEqualTo(2);
    b.proven(a, second);
    b.proven(a, third);
    assertThat(b.unproven()).isZero();
    assertThat(registry.get("playline.connections.refused").tags("transport", "ws", "reason", "unproven").counter()
        .count()).isEqualTo(1);
  }

  @Test
  void earlyResetsAreSharedByAnAddressWithinTheWindowAndRefusedWhilePenalized() throws Exception {
    AddressBudgets b = new AddressBudgets(new AddressLimitsConfig(100, 100, Duration.ofSeconds(30), Duration.ofSeconds(30),
        100, 2, 3, Duration.ofSeconds(10), AddressPrefixes.DEFAULT, 1, Duration.ofSeconds(60), Duration.ofSeconds(3)),
        registry, time);
    InetAddress a = address(1);
    for (int i = 0; i < 3; i++) {
      assertThat(b.earlyReset(a)).as("reset %d", i).isTrue();
    }
    assertThat(b.earlyReset(a)).isFalse();
    assertThat(b.earlyReset(a)).as("every further one in the window").isFalse();
    assertThat(b.earlyReset(address(2))).as("another address has its own").isTrue();
    advance(10 * SECOND);
    assertThat(b.earlyReset(a)).as("a new window").isTrue();
    b.abused(a, Transport.GRPC, false);
    assertThat(b.earlyReset(a)).as("during its penalty").isFalse();
    advance(30 * SECOND);
    assertThat(b.earlyReset(a)).as("after it, a fresh window").isTrue();
  }

  private static InetAddress address(int i) throws Exception {
    return InetAddress.getByAddress(new byte[] {(byte) 198, 51, (byte) (i >> 8), (byte) i});
  }

  @Test
  void theBurstPassesFreelyThenConnectionsOverTheRateOfBothTransportsAreOnProbation() throws Exception {
    AddressBudgets b = budgets(2, 3, Duration.ZERO, 100);
    InetAddress a = address(1);
    assertThat(b.admit(a, Transport.WS)).isEqualTo(Admission.FREE);
    assertThat(b.admit(a, Transport.GRPC)).isEqualTo(Admission.FREE);
    assertThat(b.admit(a, Transport.WS)).isEqualTo(Admission.FREE);
    assertThat(b.admit(a, Transport.GRPC)).isEqualTo(Admission.OVER_RATE);
    assertThat(b.admit(address(2), Transport.GRPC)).isEqualTo(Admission.FREE);
    advance(SECOND / 2);
    assertThat(b.admit(a, Transport.WS)).isEqualTo(Admission.FREE);
    assertThat(b.admit(a, Transport.WS)).isEqualTo(Admission.OVER_RATE);
    assertThat(registry.get("playline.connections.probation").tags("transport", "ws", "reason", "rate").counter()
        .count()).as("admitted on probation, nothing refused").isEqualTo(1);
    assertThat(registry.get("playline.connections.refused").tags("transport", "ws", "reason", "rate").counter()
        .count()).isZero();
  }

  @Test
  void aPenalizedAddressIsOnProbationUntilThePenaltyEndsAndItsConnectionsAreStillAdmitted() throws Exception {
    AddressBudgets b = budgets(100, 100, Duration.ofSeconds(10), 100);
    InetAddress a = address(1);
    b.abused(a, Transport.GRPC, false);
    assertThat(b.onProbation(a)).isTrue();
    assertThat(b.admit(a, Transport.WS)).as("players behind it are admitted, on probation")
        .isEqualTo(Admission.PENALTY);
    assertThat(b.onProbation(address(2))).isFalse();
    advance(10 * SECOND - 1);
    assertThat(b.onProbation(a)).isTrue();
    advance(1);
    assertThat(b.onProbation(a)).isFalse();
    assertThat(b.admit(a, Transport.GRPC)).isEqualTo(Admission.FREE);
  }

  @Test
  void anAddressIsPenalizedOnlyAfterItsStrikesWithinTheWindowAndNeverForAPlayersCut() throws Exception {
    AddressBudgets b = budgets(100, 100, Duration.ofSeconds(10), Duration.ofSeconds(10), 100, 3);
    InetAddress a = address(1);
    for (int i = 0; i < 100; i++) {
      b.abused(a, Transport.WS, true);
    }
    assertThat(b.onProbation(a)).as("players' cuts are theirs, not the address's").isFalse();
    b.abused(a, Transport.WS, false);
    b.abused(a, Transport.GRPC, false);
    assertThat(b.onProbation(a)).isFalse();
    advance(60 * SECOND); // the window ends: its strikes start over
    b.abused(a, Transport.WS, false);
    b.abused(a, Transport.WS, false);
    assertThat(b.onProbation(a)).isFalse();
    b.abused(a, Transport.WS, false);
    assertThat(b.onProbation(a)).isTrue();
    assertThat(registry.get("playline.connections.abuse.cuts").tags("transport", "ws", "by", "player").counter()
        .count()).isEqualTo(100);
    assertThat(registry.get("playline.connections.abuse.cuts").tags("transport", "ws", "by", "stranger").counter()
        .count()).isEqualTo(4);
    assertThat(registry.get("playline.connections.penalized").tags("transport", "ws").counter().count()).isEqualTo(1);
  }

  @Test
  void everyAddressOfOneIpv6Slash64SharesOneBudgetAndOneIpv4AddressIsItsOwn() throws Exception {
    AddressBudgets b = budgets(1, 3, Duration.ofSeconds(10), 100);
    for (int i = 0; i < 3; i++) {
      assertThat(b.admit(InetAddress.getByName("2001:db8:1:2::" + Integer.toHexString(i + 1)), Transport.WS))
          .isEqualTo(Admission.FREE);
    }
    assertThat(b.admit(InetAddress.getByName("2001:db8:1:2:ffff:ffff:ffff:fffe"), Transport.WS))
        .isEqualTo(Admission.OVER_RATE);
    assertThat(b.admit(InetAddress.getByName("2001:db8:1:3::1"), Transport.WS)).as("the next /64")
        .isEqualTo(Admission.FREE);
    b.abused(InetAddress.getByName("2001:db8:1:2::a"), Transport.WS, false);
    assertThat(b.onProbation(InetAddress.getByName("2001:db8:1:2::b"))).isTrue();
    assertThat(b.admit(InetAddress.getByName("198.51.100.1"), Transport.WS)).isEqualTo(Admission.FREE);
    assertThat(b.admit(InetAddress.getByName("198.51.100.2"), Transport.WS)).isEqualTo(Admission.FREE);
    assertThat(b.addresses()).isEqualTo(4);
  }

  @Test
  void aRepeatOffendersPenaltyDoublesUpToTheMaximumAndStartsOverAfterAQuietSpell() throws Exception {
    AddressBudgets b = budgets(100, 100, Duration.ofSeconds(10), Duration.ofSeconds(30), 100);
    InetAddress a = address(1);
    b.abused(a, Transport.GRPC, false);
    advance(5 * SECOND);
    b.abused(a, Transport.GRPC, false); // cut while its penalty runs (admitted before): no longer
    advance(5 * SECOND);
    assertThat(b.admit(a, Transport.WS)).isEqualTo(Admission.FREE);
    // Again within the maximum of its penalty's end: 20 s, then 30 s (the maximum), then 30 s.
    for (long seconds : new long[] {20, 30, 30}) {
      b.abused(a, Transport.GRPC, false);
      advance(seconds * SECOND - 1);
      assertThat(b.onProbation(a)).as("%d s", seconds).isTrue();
      advance(1);
      assertThat(b.admit(a, Transport.WS)).isEqualTo(Admission.FREE);
    }
    // Quiet for the maximum: back to 10 s, and remembered until then although its bucket is full.
    for (int i = 0; i < 30; i++) {
      advance(SECOND);
      b.admit(address(2 + i), Transport.WS);
    }
    b.abused(a, Transport.GRPC, false);
    advance(10 * SECOND);
    assertThat(b.admit(a, Transport.WS)).isEqualTo(Admission.FREE);
  }

  @Test
  void anAddressPenalizedAgainSoonIsRememberedPastItsRefill() throws Exception {
    AddressBudgets b = budgets(100, 100, Duration.ofSeconds(10), Duration.ofSeconds(60), 100);
    InetAddress a = address(1);
    b.abused(a, Transport.GRPC, false);
    advance(40 * SECOND); // its bucket is full, its penalty over: idle, but a repeat would double
    for (int i = 0; i < 20; i++) {
      b.admit(address(2 + i), Transport.WS);
    }
    b.abused(a, Transport.GRPC, false);
    advance(20 * SECOND - 1);
    assertThat(b.onProbation(a)).isTrue();
  }

  @Test
  void anAddressKeptForItsPenaltyDoesNotHoldTheIdleOnesBehindIt() throws Exception {
    AddressBudgets b = budgets(100, 100, Duration.ofSeconds(10), Duration.ofSeconds(60), 100);
    InetAddress a = address(1);
    b.abused(a, Transport.GRPC, false);
    advance(20 * SECOND);
    for (int i = 0; i < 10; i++) {
      b.admit(address(2 + i), Transport.WS); // idle from the next second on
    }
    advance(5 * SECOND);
    for (int i = 0; i < 10; i++) {
      b.admit(address(100), Transport.WS);
    }
    assertThat(b.addresses()).isEqualTo(2); // the penalized one and the one still connecting
  }

  @Test
  void manyAddressesCostAtMostTheCapAndIdleOnesAreForgotten() throws Exception {
    AddressBudgets b = budgets(10, 10, Duration.ofSeconds(10), 50);
    for (int i = 0; i < 1_000; i++) {
      b.admit(address(i), Transport.WS);
    }
    assertThat(b.addresses()).isEqualTo(50);
    // A second later every bucket is full again: the idle go, a few per call.
    advance(SECOND);
    for (int i = 0; i < 20; i++) {
      b.admit(address(5_000), Transport.WS);
    }
    assertThat(b.addresses()).isEqualTo(1);
    // A penalized address is kept while its penalty runs, however idle.
    b.abused(address(7), Transport.WS, false);
    advance(5 * SECOND);
    for (int i = 0; i < 20; i++) {
      b.admit(address(6_000), Transport.WS);
    }
    assertThat(b.onProbation(address(7))).isTrue();
  }
}
