package io.playline.embedded;

import io.playline.time.Time;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Forms a Redis Cluster out of fresh, empty cluster-enabled nodes with raw commands, as {@code
 * redis-cli --cluster create} would (no redis-cli needed; Redis 6.2 compatible: {@code CLUSTER
 * ADDSLOTS}, not 7.0's {@code ADDSLOTSRANGE}), and checks a cluster's health. Stateless.
 */
final class ClusterFormation {
  static final int SLOTS = 16_384;

  private ClusterFormation() {}

  /**
   * Gives the first {@code masters} ports the slots in equal ranges, makes the following ports
   * their replicas ({@code replicasPerMaster} each, in master order), and waits until {@link
   * #healthy} holds.
   */
  static void form(List<Integer> ports, int masters, int replicasPerMaster, Duration timeout) throws IOException {
    long deadline = Time.SYSTEM.nanoTime() + timeout.toNanos();
    List<String> ids = new ArrayList<>(ports.size());
    for (int i = 0; i < ports.size(); i++) {
      int port = ports.get(i);
      ids.add(text(ClusterAdmin.call(port, "CLUSTER", "MYID"), port));
      // Distinct config epochs up front, so the masters need not resolve a collision first.
      ClusterAdmin.call(port, "CLUSTER", "SET-CONFIG-EPOCH", Integer.toString(i + 1));
    }
    for (int port : ports.subList(1, ports.size())) {
      ClusterAdmin.call(ports.get(0), "CLUSTER", "MEET", ClusterAdmin.HOST, Integer.toString(port));
    }
    for (int m = 0; m < masters; m++) {
      int first = m * SLOTS / masters;
      int end = (m + 1) * SLOTS / masters;
      List<String> command = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
      for (int slot = first; slot < end; slot++) {
        command.add(Integer.toString(slot));
      }
      ClusterAdmin.call(ports.get(m), command.toArray(new String[0]));
    }
    // A replica must know its master's id before CLUSTER REPLICATE accepts it.
    ClusterAdmin.await("every node knowing every other", left(deadline), () -> {
      for (int port : ports) {
        ClusterView view = ClusterAdmin.view(port);
        if (view.entries().size() != ports.size() || view.entries().stream().anyMatch(ClusterView.Entry::troubled)) {
          return "node " + port + " knows " + view.entries().size() + " of " + ports.size() + " nodes";
        }
      }
      return null;
    });
    for (int m = 0; m < masters; m++) {
      for (int r = 0; r < replicasPerMaster; r++) {
        ClusterAdmin.call(ports.get(masters + m * replicasPerMaster + r), "CLUSTER", "REPLICATE", ids.get(m));
      }
    }
    ClusterAdmin.await("a healthy cluster", left(deadline), () -> healthy(ports, Set.of(), masters));
  }

  /**
   * Null when the cluster is healthy as seen from every live node (those of {@code ports} not in
   * {@code down}), else what is not yet: {@code cluster_state:ok} with every slot served, every
   * live node reachable, the same roles and slots in every view with {@code masters} masters
   * serving slots, and every live replica linked to its master and not syncing.
   */
  static @Nullable String healthy(List<Integer> ports, Set<Integer> down, int masters) throws IOException {
    String shape = null;
    for (int port : ports) {
      if (down.contains(port)) {
        continue;
      }
      Map<String, String> info = ClusterAdmin.info(port, "CLUSTER", "INFO");
      if (!"ok".equals(info.get("cluster_state")) || !Integer.toString(SLOTS).equals(info.get("cluster_slots_ok"))) {
        return "node " + port + ": cluster_state " + info.get("cluster_state") + ", slots ok "
            + info.get("cluster_slots_ok");
      }
      ClusterView view = ClusterAdmin.view(port);
      for (ClusterView.Entry e : view.entries()) {
        if (!down.contains(e.port()) && e.troubled()) {
          return "node " + port + " sees node " + e.port() + " as " + e.flags();
        }
      }
      long serving = view.entries().stream().filter(e -> e.master() && !e.slotRanges().isEmpty()).count();
      String own = view.shape(down);
      if (serving != masters || (shape != null && !shape.equals(own))) {
        return "node " + port + " sees " + serving + " masters serving slots, views differ:\n" + own;
      }
      shape = own;
      ClusterView.Entry me = view.myself().orElseThrow(() -> new IOException("no 'myself' in CLUSTER NODES"));
      if (!me.master()) {
        Map<String, String> replication = ClusterAdmin.info(port, "INFO", "replication");
        if (!"up".equals(replication.get("master_link_status"))
            || !"0".equals(replication.get("master_sync_in_progress"))) {
          return "replica " + port + ": master link " + replication.get("master_link_status") + ", syncing "
              + replication.get("master_sync_in_progress");
        }
      }
    }
    return null;
  }

  /**
   * Null once every replica of the master on {@code port} has acknowledged the master's current
   * replication offset (every write the master took before this check's first call), else which
   * has not. Replicas acknowledge once a second.
   */
  static ClusterAdmin.Check replicated(int port) throws IOException {
    long target = Long.parseLong(ClusterAdmin.info(port, "INFO", "replication").get("master_repl_offset"));
    return () -> {
      Map<String, String> replication = ClusterAdmin.info(port, "INFO", "replication");
      int replicas = Integer.parseInt(replication.getOrDefault("connected_slaves", "0"));
      Set<String> behind = new HashSet<>();
      for (int i = 0; i < replicas; i++) {
        String line = replication.getOrDefault("slave" + i, "");
        long offset = -1;
        for (String field : line.split(",")) {
          if (field.startsWith("offset=")) {
            offset = Long.parseLong(field.substring("offset=".length()));
          }
        }
        if (offset < target) {
          behind.add(line);
        }
      }
      return replicas == 0 ? "master " + port + " has no connected replica"
          : behind.isEmpty() ? null : "replicas of " + port + " behind offset " + target + ": " + behind;
    };
  }

  private static String text(@Nullable String reply, int port) throws IOException {
    if (reply == null || reply.isEmpty()) {
      throw new IOException("node " + port + " gave no answer");
    }
    return reply;
  }

  private static Duration left(long deadline) {
    return Duration.ofNanos(Math.max(0, deadline - Time.SYSTEM.nanoTime()));
  }
}
