package io.playline.embedded;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * One node's view of a Redis Cluster, parsed from its {@code CLUSTER NODES} reply (same format
 * in Redis 6.2 and 7.x). Immutable.
 *
 * @param entries one per node the answering node knows, itself included
 */
record ClusterView(List<Entry> entries) {

  ClusterView {
    entries = List.copyOf(entries);
  }

  /**
   * One line of {@code CLUSTER NODES}.
   *
   * @param id the node id
   * @param port its client port ({@code ip:port@busport[,hostname]})
   * @param flags e.g. {@code myself}, {@code master}, {@code slave}, {@code fail?}, {@code fail},
   *     {@code handshake}, {@code noaddr}
   * @param masterId the id of the master it replicates, {@code "-"} for a master
   * @param slotRanges inclusive {@code [first, last]} ranges it serves (migrating slots left out)
   */
  record Entry(String id, int port, Set<String> flags, String masterId, List<int[]> slotRanges) {
    Entry {
      flags = Set.copyOf(flags);
      slotRanges = List.copyOf(slotRanges);
    }

    boolean master() {
      return flags.contains("master");
    }

    /** Failing, failed, or not yet (or no longer) reachable by address. */
    boolean troubled() {
      return flags.contains("fail") || flags.contains("fail?") || flags.contains("handshake")
          || flags.contains("noaddr");
    }

    boolean serves(int slot) {
      for (int[] range : slotRanges) {
        if (slot >= range[0] && slot <= range[1]) {
          return true;
        }
      }
      return false;
    }

    /** Role, master and slots in one string, for comparing views across nodes. */
    String shape() {
      return id + " " + (master() ? "master" : "replica of " + masterId) + " "
          + slotRanges.stream().map(r -> r[0] + "-" + r[1]).collect(Collectors.joining(","));
    }
  }

  /** Parses a {@code CLUSTER NODES} reply. */
  static ClusterView parse(String clusterNodes) {
    List<Entry> entries = new ArrayList<>();
    for (String line : clusterNodes.split("\r?\n")) {
      if (line.isBlank()) {
        continue;
      }
      String[] f = line.trim().split(" ");
      if (f.length < 8) {
        throw new IllegalArgumentException("not a CLUSTER NODES line: " + line);
      }
      String hostPort = f[1].split("@", 2)[0]; // ip:port@busport[,hostname]; ":0@0" while noaddr
      int port = Integer.parseInt(hostPort.substring(hostPort.lastIndexOf(':') + 1));
      List<int[]> ranges = new ArrayList<>();
      for (int i = 8; i < f.length; i++) {
        if (f[i].startsWith("[")) {
          continue; // a slot being imported or migrated
        }
        int dash = f[i].indexOf('-');
        int first = Integer.parseInt(dash < 0 ? f[i] : f[i].substring(0, dash));
        int last = dash < 0 ? first : Integer.parseInt(f[i].substring(dash + 1));
        ranges.add(new int[] {first, last});
      }
      ranges.sort(Comparator.comparingInt(r -> r[0]));
      entries.add(new Entry(f[0], port, Set.of(f[2].split(",")), f[3], ranges));
    }
    return new ClusterView(entries);
  }

  Optional<Entry> myself() {
    return entries.stream().filter(e -> e.flags().contains("myself")).findFirst();
  }

  Optional<Entry> byPort(int port) {
    return entries.stream().filter(e -> e.port() == port).findFirst();
  }

  Optional<Entry> byId(String id) {
    return entries.stream().filter(e -> e.id().equals(id)).findFirst();
  }

  /** The master serving {@code slot} in this view, if one does. */
  Optional<Entry> masterOf(int slot) {
    return entries.stream().filter(e -> e.master() && e.serves(slot)).findFirst();
  }

  /** Every node's role and slots, ordered by id: equal across nodes once the cluster converged. */
  String shape(Set<Integer> ignoredPorts) {
    return entries.stream().filter(e -> !ignoredPorts.contains(e.port()))
        .sorted(Comparator.comparing(Entry::id)).map(Entry::shape).collect(Collectors.joining("\n"));
  }
}
