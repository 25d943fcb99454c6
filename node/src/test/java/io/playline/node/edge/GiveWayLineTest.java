package io.playline.node.edge;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.UnknownHostException;
import org.junit.jupiter.api.Test;

/** Which connection gives way to a newcomer: the least recently active of the address holding the most. */
class GiveWayLineTest {
  private final GiveWayLine<String> line = new GiveWayLine<>();

  private static InetAddress address(int n) throws UnknownHostException {
    return InetAddress.getByName("10.0.0." + n); // a literal: no lookup
  }

  /** {@code name} of {@code address} opens, last active at {@code when}, and may give way. */
  private void open(int address, long when, String name) throws UnknownHostException {
    line.opened(address(address));
    line.mayGiveWay(address(address), when, name);
  }

  @Test
  void theAddressHoldingTheMostConnectionsLosesItsLeastRecentlyActive() throws Exception {
    open(2, 1, "b1");
    open(1, 2, "a1");
    open(1, 3, "a2");
    open(1, 4, "a3");
    open(2, 5, "b2");
    assertThat(line.takeFromBusiest()).isEqualTo("a1");
    // Now two each: the least recently active of both addresses' goes.
    assertThat(line.takeFromBusiest()).isEqualTo("b1");
    assertThat(line.takeFromBusiest()).isEqualTo("a2");
    assertThat(line.takeFromBusiest()).isEqualTo("a3");
    assertThat(line.takeFromBusiest()).isEqualTo("b2");
    assertThat(line.takeFromBusiest()).isNull();
  }

  @Test
  void everyConnectionHeldCountsThoughOnlyThoseThatMayGiveWayAreTaken() throws Exception {
    open(2, 1, "b1");
    open(2, 2, "b2");
    open(1, 3, "a1");
    line.opened(address(1)); // busy or proven: held, never taken
    line.opened(address(1));
    assertThat(line.takeFromBusiest()).as("a holds three").isEqualTo("a1");
    assertThat(line.takeFromBusiest()).as("a holds two, none that may give way").isEqualTo("b1");
  }

  @Test
  void aConnectionThatMayNoLongerGiveWayOrClosedIsNotTakenNorCounted() throws Exception {
    open(1, 1, "a1");
    open(1, 2, "a2");
    open(2, 3, "b1");
    line.mayNotGiveWay(address(1), 1); // a1 busy: still held
    assertThat(line.takeFromBusiest()).isEqualTo("a2");
    line.closed(address(1), 1); // a1 closes: a holds none
    open(2, 4, "b2");
    open(3, 5, "c1");
    assertThat(line.takeFromBusiest()).isEqualTo("b1");
    line.closed(address(2), 4);
    assertThat(line.takeFromBusiest()).as("c1, the one left").isEqualTo("c1");
    assertThat(line.takeFromBusiest()).isNull();
  }

  @Test
  void anAddressGivesWayToItsOwnNewcomerItsLeastRecentlyActive() throws Exception {
    open(1, 1, "a1");
    open(2, 2, "b1");
    open(2, 3, "b2");
    open(2, 4, "b3");
    line.mayNotGiveWay(address(2), 2);
    line.mayGiveWay(address(2), 5, "b1"); // b1 active again: behind b2 and b3
    assertThat(line.takeFrom(address(1))).isEqualTo("a1");
    assertThat(line.takeFrom(address(1))).isNull();
    assertThat(line.takeFrom(address(2))).isEqualTo("b2");
    assertThat(line.takeFrom(address(3))).isNull();
    assertThat(line.takeFromBusiest()).isEqualTo("b3");
  }

  @Test
  void connectionsOfNoKnownAddressAreOneAddress() throws Exception {
    line.opened(null);
    line.mayGiveWay(null, 1, "x1");
    line.opened(null);
    line.mayGiveWay(null, 2, "x2");
    open(1, 3, "a1");
    assertThat(line.takeFromBusiest()).isEqualTo("x1");
    assertThat(line.takeFrom(null)).isEqualTo("x2");
  }
}
