package io.playline.bench.hostile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The attackers' own JVM: its scheduling class, and an attack started, read and stopped through it. */
class AttackerProcessTest {
  @Test
  void anIdleAttackerProcessRunsInTheIdleClass() throws Exception {
    try (AttackerProcess p = AttackerProcess.start(AttackerProcess.Cpu.IDLE)) {
      if (p.describe().startsWith("idle")) {
        assertThat(p.policy()).as("scheduling policy of the attacker process").isEqualTo(AttackerProcess.SCHED_IDLE);
      } else {
        // A machine that refuses SCHED_IDLE says so in the report's header instead.
        assertThat(p.describe()).contains("SCHED_IDLE refused");
        assertThat(p.policy()).isZero();
      }
    }
  }

  @Test
  void aSharedAttackerProcessKeepsTheNormalClass() throws Exception {
    try (AttackerProcess p = AttackerProcess.start(AttackerProcess.Cpu.parse("shared"))) {
      assertThat(p.policy()).isZero();
      assertThat(p.describe()).startsWith("shared");
    }
  }

  @Test
  void anUnknownCpuModeIsRefused() {
    for (String bad : List.of("fast", "quota:", "quota:0", "quota:-1", "quota:x", "quota:65")) {
      assertThatThrownBy(() -> AttackerProcess.Cpu.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("--attacker-cpu");
    }
    assertThat(AttackerProcess.Cpu.parse("quota:0.25").quotaCores()).isEqualTo(0.25);
  }

  /**
   * quota:CORES: the attacker JVM runs in a control group of its own, held to that share of the host
   * (where this machine lets the bench create one; else the header says why), removed when it ends.
   */
  @Test
  void aQuotaAttackerProcessRunsInItsOwnControlGroupRemovedAtTheEnd() throws Exception {
    java.nio.file.Path group;
    try (AttackerProcess p = AttackerProcess.start(AttackerProcess.Cpu.parse("quota:0.25"))) {
      org.junit.jupiter.api.Assumptions.assumeFalse(p.describe().contains("CPU quota refused"),
          "this machine refuses a cpu control group: " + p.describe());
      assertThat(p.describe()).startsWith("quota (own JVM, 0.25 cores (");
      assertThat(p.inQuota()).as("the attacker JVM is a member of its group").isTrue();
      assertThat(p.policy()).isZero();
      group = java.nio.file.Path.of(p.describe().substring(p.describe().indexOf("(/") + 1, p.describe().length() - 2));
      assertThat(group).isDirectory();
      java.nio.file.Path v1 = group.resolve("cpu.cfs_quota_us");
      assertThat(java.nio.file.Files.readString(java.nio.file.Files.exists(v1) ? v1 : group.resolve("cpu.max")))
          .startsWith("25000");
    }
    assertThat(group).doesNotExist();
  }

  /** A group whose quota cannot be set (here: a setting the controller does not have) is removed again. */
  @Test
  void aControlGroupThatCannotBeSetIsRemovedAgain() throws Exception {
    java.nio.file.Path v1 = java.nio.file.Path.of("/sys/fs/cgroup/cpu");
    org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.isWritable(v1.resolve("cgroup.procs")),
        "no writable cgroup v1 cpu controller here");
    java.nio.file.Path group = v1.resolve("playline-bench-test-" + ProcessHandle.current().pid());
    assertThatThrownBy(() -> CpuQuota.configured(group, 0.25, Map.of("cpu.no_such_setting", "1")))
        .isInstanceOf(java.io.IOException.class).hasMessageContaining("cannot set the CPU quota");
    assertThat(group).doesNotExist();
  }

  @Test
  void anAttackRunsInTheProcessAndReportsItsCounters() throws Exception {
    List<Socket> accepted = new CopyOnWriteArrayList<>();
    try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"))) {
      Thread acceptor = new Thread(() -> {
        try {
          while (true) {
            accepted.add(server.accept());
          }
        } catch (Exception e) {
          // closed
        }
      });
      acceptor.setDaemon(true);
      acceptor.start();
      InetSocketAddress port = new InetSocketAddress("127.0.0.1", server.getLocalPort());
      AttackTarget target = new AttackTarget(URI.create("ws://127.0.0.1:" + port.getPort() + "/v1/stream"), port, port,
          "secret with spaces\tand a tab", 1000, 2, 3, 10, Duration.ofMillis(200), 1000, 9, null);
      try (AttackerProcess p = AttackerProcess.start(AttackerProcess.Cpu.SHARED)) {
        long cpu0 = p.cpuNanos();
        try (AttackerProcess.Running running = p.attack(List.of(AttackKind.SLOWLORIS), target, Duration.ofSeconds(30))) {
          // Slowloris holds its connections to both ports (here one) and dribbles bytes into them.
          await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            List<AttackStats.Snapshot> s = running.snapshots();
            assertThat(s).singleElement().satisfies(x -> {
              assertThat(x.kind()).isEqualTo(AttackKind.SLOWLORIS);
              assertThat(x.connects()).isGreaterThanOrEqualTo(2);
              assertThat(x.sent()).isPositive();
            });
          });
          assertThat(running.progressLine()).startsWith("[slowloris sent ");
        }
        assertThat(accepted).hasSizeGreaterThanOrEqualTo(2);
        // From the attacker's own source address, 127.0.<block>.<kind + 1>.
        assertThat(accepted.get(0).getInetAddress().getHostAddress()).startsWith("127.0.9.");
        assertThat(p.cpuNanos()).isGreaterThan(cpu0);
      }
    }
  }

  @Test
  void targetsAndSnapshotsCrossTheWireUnchanged() throws Exception {
    InetSocketAddress a = new InetSocketAddress("127.0.0.1", 1234);
    AttackTarget t = new AttackTarget(URI.create("ws://127.0.0.1:28080/v1/stream"), a,
        new InetSocketAddress("127.0.0.1", 29100), "s\te cret", 7, 4, 500, 18, Duration.ofSeconds(2), 5_000_000, 3,
        InetAddress.getByName("127.0.0.2"));
    String line = AttackWire.start(List.of(AttackKind.RAPID_RESET, AttackKind.SESSION_CHURN), Duration.ofSeconds(20), t);
    String[] f = line.split("\t", -1);
    assertThat(f[0]).isEqualTo(AttackWire.START);
    assertThat(AttackWire.kinds(f[1])).containsExactly(AttackKind.RAPID_RESET, AttackKind.SESSION_CHURN);
    assertThat(f[2]).isEqualTo("20000");
    assertThat(AttackWire.target(f, 3)).isEqualTo(t);
    assertThat(AttackWire.target(AttackWire.target(t.elsewhere()).split("\t", -1), 0)).isEqualTo(t.elsewhere());

    AttackStats.Snapshot s = new AttackStats.Snapshot(AttackKind.WRITE_FLOOD, 1, 2, 3, 4, 5, -1, 7,
        Map.of("RATE_LIMITED", 10L, "close-4003", 11L));
    assertThat(AttackWire.snapshot(AttackWire.snapshot(s))).isEqualTo(s);
    AttackStats.Snapshot none = new AttackStats.Snapshot(AttackKind.IDLE_H2, 1, 0, 0, 0, 0, -1, 0, Map.of());
    assertThat(AttackWire.snapshot(AttackWire.snapshot(none))).isEqualTo(none);
  }
}
