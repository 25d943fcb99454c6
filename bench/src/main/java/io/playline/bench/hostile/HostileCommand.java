package io.playline.bench.hostile;

import io.playline.bench.common.BenchSettings;
import io.playline.bench.common.Durations;
import io.playline.bench.common.EndpointsOption;
import io.playline.bench.common.EventsOption;
import io.playline.bench.common.SecretOption;
import io.playline.bench.common.ZoneOption;
import io.playline.bench.load.LoadGenerator;
import io.playline.bench.load.LoadSnapshot;
import io.playline.bench.load.LoadSpec;
import io.playline.bench.probe.LoadTarget;
import io.playline.bench.probe.ProcStats;
import io.playline.core.config.ConfigSource;
import io.playline.standalone.PlaylineCli;
import io.playline.time.Time;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.HdrHistogram.Histogram;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code bin/playline bench hostile}: honest players at a fixed rate on one running node, measured
 * alone (the baseline phase), then beside K attackers of one kind at a time, then of all kinds
 * together (issue 28's hostile-load benchmark). Per phase: the honest ack p50/p99 and its ratio to
 * the baseline, honest errors, the node's RSS growth ({@code /proc}) and log growth (its log
 * directory, {@code <data dir>/logs}), and per attacker how fast the node cut it off or throttled
 * it; then the targets, met or missed. Every attacker is bounded in connections,
 * operations and time and stops by itself; a pause between phases lets the node settle. Control
 * thread only.
 */
@Command(name = "hostile", mixinStandardHelpOptions = true,
    description = {"Honest players at a fixed rate beside hostile clients (HTTP/2 rapid reset, WebSocket ping flood,",
        "idle HTTP/2, slowloris, tombstone flood, one-user write flood, session churn), one kind at a time and all",
        "together, against a running standalone. All traffic goes to 127.0.0.0/8."})
public final class HostileCommand implements Callable<Integer> {
  @Mixin EndpointsOption endpoints = new EndpointsOption();

  // --log-dir, --rate, --connections, --warmup and --uid-base are this command's own, not common/
  // mixins: bench's flags of the same names default to its scenario's (and its --log-dir is where its
  // child processes log); here they have fixed defaults, and --uid-base also places the attackers' users.
  @Option(names = "--log-dir", paramLabel = "DIR", description = "The node's log directory (default: logs/ beside the endpoints file).")
  @Nullable Path logDir;

  @Option(names = "--attacks", split = ",", defaultValue = "rapid-reset,ping-flood,idle-h2,slowloris,tombstones,write-flood,session-churn",
      description = "Attacks, one phase each (default: ${DEFAULT-VALUE}).")
  List<String> attacks = List.of();

  // Named --no-X: picocli sets a negatable boolean to the opposite of its default under its own name.
  @Option(names = "--no-together", negatable = true,
      description = "Skip the last phase, every attack at once (default: run it).")
  boolean together = true;

  @Option(names = "--shared-address", description = "Every attacker connects from the honest players' own source "
      + "address (127.0.0.2), as behind a carrier's CGNAT address; add the kinds malformed (a buggy device) and "
      + "neighbours (honest players reconnecting, whose admitted connects are a target) to --attacks.")
  boolean sharedAddress;

  @Option(names = "--no-single", negatable = true,
      description = "Skip the phases of each attack alone: the baseline and the all-at-once phase only (default: run them).")
  boolean single = true;

  @Option(names = "--rate", defaultValue = "2000", description = "Honest heartbeats per second (default: ${DEFAULT-VALUE}).")
  double rate;

  @Option(names = "--connections", defaultValue = "1000", description = "Honest players (default: ${DEFAULT-VALUE}).")
  int connections;

  @Mixin EventsOption events = new EventsOption();

  @Option(names = {"-K", "--attackers"}, defaultValue = "4", description = "Connections per attacker kind "
      + "(write flood: at least 16; slowloris: K to each port) (default: ${DEFAULT-VALUE}).")
  int attackers;

  @Option(names = "--idle-connections", defaultValue = "500", description = "Idle HTTP/2 connections, and slowloris connections "
      + "per port (WebSocket, admin) (default: ${DEFAULT-VALUE}).")
  int idleConnections;

  @Option(names = "--attack-frames-per-second", defaultValue = "18", description = "Frames per second per "
      + "tombstone, write-flood connection: just under connection.max.frames.per.second (default: ${DEFAULT-VALUE}).")
  int framesPerSecond;

  @Option(names = "--slowloris-interval", defaultValue = "2s", description = "Pause between slowloris bytes (default: ${DEFAULT-VALUE}).")
  String slowlorisInterval;

  @Option(names = "--attacker-cpu", defaultValue = "quota:0.25", description = "The attackers run in a JVM of their "
      + "own (their collections and compilations never pause the honest players' clients). quota:<cores>: that JVM "
      + "runs in a control group of its own held to that many cores, the kernel work of its loopback sends "
      + "included, as if the attackers sent from machines of their own at the rate that share of this host reaches "
      + "(needs root and a cpu cgroup controller; refused, it runs as idle and the header says why); idle: it runs "
      + "in Linux's SCHED_IDLE class, on CPU the node and the honest players leave (but a loopback send's kernel "
      + "work for the receiver escapes the class); shared: it competes with them for this host's cores "
      + "(default: ${DEFAULT-VALUE}).")
  String attackerCpu;

  @Option(names = "--max-operations", defaultValue = "5000000",
      description = "Operations after which an attacker stops (default: ${DEFAULT-VALUE}).")
  long maxOperations;

  @Option(names = "--phase", defaultValue = "20s", description = "Length of each phase (default: ${DEFAULT-VALUE}).")
  String phase;

  @Option(names = "--warmup", defaultValue = "10s", description = "Honest load before the baseline (default: ${DEFAULT-VALUE}).")
  String warmup;

  @Option(names = "--attack-warmup", defaultValue = "3s", description = "Each attack alone, unmeasured, for this "
      + "long between two honest warm-ups: a node in service has long run the code paths an attack takes with its "
      + "hot code compiled (on a node that has only ever seen uniform honest players, an attack's first second deoptimizes "
      + "~100 compiled methods and its first gRPC connection loads grpc-java's server classes on an I/O loop); 0s "
      + "measures that cold node (default: ${DEFAULT-VALUE}).")
  String attackWarmup;

  @Option(names = "--pause", defaultValue = "5s", description = "Honest load, unmeasured, after each phase (default: ${DEFAULT-VALUE}).")
  String pause;

  @Option(names = "--recover-max", defaultValue = "60s", description = "Longest wait after a phase for the honest "
      + "players to be acked at the offered rate again (default: ${DEFAULT-VALUE}).")
  String recoverMax;

  @Mixin SecretOption secret = new SecretOption();

  @Option(names = "--uid-base", defaultValue = "7000000", description = "First honest user id; attackers use "
      + "ids from uid-base + connections + 1000 (default: ${DEFAULT-VALUE}).")
  long uidBase;

  @Mixin ZoneOption zone = new ZoneOption();

  /** The honest players' source address: 127.0.0.2 (up to 5 000 of them). */
  private static final int HONEST_ADDRESS = 2;

  private final PrintStream out = System.out;

  @Override
  public Integer call() throws Exception {
    ConfigSource config = BenchSettings.load(Map.of());
    Path file = endpoints.file(config);
    LoadTarget node = LoadTarget.read(file);
    Path logs = logDir != null ? logDir : file.toAbsolutePath().getParent().resolve("logs");
    String key = secret.secret(config, PlaylineCli.DEV_SECRET);
    List<AttackKind> kinds = attacks.stream().map(AttackKind::parse).toList();
    AttackTarget target = new AttackTarget(node.websocket(), address(node.grpc()), address(node.admin()), key,
        uidBase + connections + 1000, attackers, idleConnections, framesPerSecond, Durations.parse(slowlorisInterval, Duration.ofSeconds(2), "--slowloris-interval"),
        maxOperations, 1, null);
    if (sharedAddress) {
      target = target.from(InetAddress.getByAddress(new byte[] {127, 0, 0, (byte) HONEST_ADDRESS}));
    }
    Duration length = Durations.parse(phase, Duration.ofSeconds(20), "--phase");
    AttackerProcess.Cpu cpu = AttackerProcess.Cpu.parse(attackerCpu);
    out.printf(Locale.ROOT, "hostile: node pid %d, %s, logs %s; %d honest players at %.0f/s; K=%d; phases of %ss; "
        + "attackers' CPU %s%n", node.pid(), node.websocket(), logs, connections, rate, attackers, length.toSeconds(),
        attackerCpu);
    LoadSpec spec = new LoadSpec("ws", List.of(node.websocket()), 0, connections, 5000, HONEST_ADDRESS, key, uidBase,
        LoadSpec.FlagMode.TODAY, zone.zone(), events.events(), 8, 500, 1, 0, 0);
    List<PhaseResult> results = new ArrayList<>();
    try (AttackerProcess attackers = AttackerProcess.start(cpu); LoadGenerator honest = LoadGenerator.start(spec)) {
      awaitConnected(honest);
      honest.setRate(rate, Duration.ofSeconds(3));
      Duration honestWarmup = Durations.parse(warmup, Duration.ofSeconds(10), "--warmup");
      hold(honest, honestWarmup);
      if (warmAttackPaths(kinds, target, attackers)) {
        hold(honest, honestWarmup); // the deoptimized methods compiled again, with the attack's paths in their profiles
      }
      out.println("  attackers run as: " + attackers.describe());
      results.add(phase("baseline", List.of(), honest, node.pid(), logs, target, attackers, length));
      for (AttackKind k : single ? kinds : List.<AttackKind>of()) {
        recover(honest, results);
        // Behind a shared address, the neighbours reconnect beside each attack, as the honest players heartbeat.
        List<AttackKind> running = sharedAddress && k != AttackKind.NEIGHBOURS && kinds.contains(AttackKind.NEIGHBOURS)
            ? List.of(k, AttackKind.NEIGHBOURS) : List.of(k);
        results.add(phase(k.cliName(), running, honest, node.pid(), logs, target, attackers, length));
      }
      if (together && kinds.size() > 1) {
        recover(honest, results);
        // From addresses and users none of the single phases (nor the warm-up) used: every attacker
        // meets the node for the first time, as a new attack would, not as a repeat offender in penalty.
        results.add(phase("all", kinds, honest, node.pid(), logs, target.elsewhere().elsewhere(), attackers, length));
      }
      recover(honest, results);
      honest.setRate(0, Duration.ZERO);
    }
    HostileReport.print(results, out);
    return 0;
  }

  /**
   * Runs each attack alone for {@code --attack-warmup}, unmeasured, after the honest warm-up (while
   * the hot code is compiled, so the traps its paths hit are recorded and not compiled in again;
   * alone, so each gets as far as its refusals), from other addresses and users than the measured
   * attacks (no penalty, budget or tombstone carries into a single-kind phase); false when there
   * is none. A second honest warm-up lets the node settle.
   */
  private boolean warmAttackPaths(List<AttackKind> kinds, AttackTarget target, AttackerProcess attackers) {
    Duration d = Durations.parse(attackWarmup, Duration.ofSeconds(3), "--attack-warmup");
    if (d.isZero() || kinds.isEmpty()) {
      return false;
    }
    for (AttackKind k : kinds) {
      AttackerProcess.Running warming = attackers.attack(List.of(k), target.elsewhere(), d);
      try {
        sleep(d);
      } finally {
        warming.close();
      }
    }
    out.printf(Locale.ROOT, "  attack paths warmed for %ss each (unmeasured)%n", d.toMillis() / 1000.0);
    return true;
  }

  private PhaseResult phase(String name, List<AttackKind> kinds, LoadGenerator honest, long pid, Path logs,
      AttackTarget target, AttackerProcess attackers, Duration length) {
    LoadSnapshot s0 = honest.snapshot();
    long nodeCpu0 = ProcStats.cpuNanos(pid);
    long attackCpu0 = attackers.cpuNanos();
    long nodeCpu;
    long attackCpu;
    long rss0 = ProcStats.rssBytes(pid);
    long peak = rss0;
    long log0 = directoryBytes(logs);
    long begin = Time.SYSTEM.nanoTime();
    Histogram latencies = LoadSnapshot.newHistogram();
    LoadSnapshot s1 = s0;
    List<AttackStats.Snapshot> attacks;
    try (AttackerProcess.Running running = attackers.attack(kinds, target, length)) {
      long lastNodeCpu = nodeCpu0;
      long lastAttackCpu = attackCpu0;
      while (Time.SYSTEM.nanoTime() - begin < length.toNanos()) {
        LoadSnapshot before = s1;
        sleep(Duration.ofSeconds(1));
        s1 = honest.snapshot();
        latencies.add(s1.interval());
        peak = Math.max(peak, ProcStats.rssBytes(pid));
        long nodeNow = ProcStats.cpuNanos(pid);
        long attackNow = attackers.cpuNanos();
        double second = (s1.nanos() - before.nanos()) / 1e9;
        out.printf(Locale.ROOT, "  %-13s %3ds  honest open %5d  acked %8d  errors %d  p99 %s ms  rss %d MiB  "
                + "cpu node %.2f attackers %.2f  %s%n",
            name, (Time.SYSTEM.nanoTime() - begin) / 1_000_000_000L, s1.open(), s1.acked() - s0.acked(),
            honestErrors(s0, s1), s1.interval().getTotalCount() == 0 ? "-"
                : String.format(Locale.ROOT, "%.2f", s1.interval().getValueAtPercentile(99) / 1000.0),
            ProcStats.rssBytes(pid) >> 20, (nodeNow - lastNodeCpu) / 1e9 / second,
            (attackNow - lastAttackCpu) / 1e9 / second, running.progressLine());
        lastNodeCpu = nodeNow;
        lastAttackCpu = attackNow;
      }
      attacks = running.snapshots();
      nodeCpu = ProcStats.cpuNanos(pid) - nodeCpu0;
      attackCpu = attackers.cpuNanos() - attackCpu0;
    }
    double seconds = (s1.nanos() - s0.nanos()) / 1e9;
    return new PhaseResult(name, seconds, s1.acked() - s0.acked(), millis(latencies, 50), millis(latencies, 99),
        honestErrors(s0, s1), errorKinds(s0, s1), Math.max(0, peak - rss0), Math.max(0, directoryBytes(logs) - log0),
        nodeCpu, attackCpu, Double.NaN, attacks);
  }

  /** Error frames, failed connects and closes the honest players saw between two snapshots. */
  private static long honestErrors(LoadSnapshot a, LoadSnapshot b) {
    long closes = b.closes().values().stream().mapToLong(Long::longValue).sum()
        - a.closes().values().stream().mapToLong(Long::longValue).sum();
    return b.errorTotal() - a.errorTotal() + b.connectFailures() - a.connectFailures() + closes;
  }

  /** The honest players' error frames by code and closes by close code between two snapshots. */
  private static String errorKinds(LoadSnapshot a, LoadSnapshot b) {
    Map<String, Long> kinds = new TreeMap<>();
    b.errorsByName().forEach((k, v) -> kinds.merge(k, v - a.errorsByName().getOrDefault(k, 0L), Long::sum));
    b.closes().forEach((k, v) -> kinds.merge("close " + k, v - a.closes().getOrDefault(k, 0L), Long::sum));
    if (b.connectFailures() > a.connectFailures()) {
      kinds.put("connect failed", b.connectFailures() - a.connectFailures());
    }
    kinds.values().removeIf(v -> v == 0);
    return kinds.toString();
  }

  private void awaitConnected(LoadGenerator g) {
    long end = Time.SYSTEM.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    LoadSnapshot s = g.snapshot();
    while (s.open() + s.connectFailures() < connections && Time.SYSTEM.nanoTime() < end) {
      sleep(Duration.ofSeconds(1));
      s = g.snapshot();
    }
    out.printf("  honest players: %d open, %d failed%n", s.open(), s.connectFailures());
  }

  /**
   * After a phase: keeps the honest load going for {@code --pause}, then until one second's acks
   * reach 90 % of the offered rate with a p99 within 2x the baseline's (at most {@code
   * --recover-max}), so the next phase does not measure this one's backlog. Records how long the
   * honest players took to recover in the previous phase's result.
   */
  private void recover(LoadGenerator g, List<PhaseResult> results) {
    long begin = Time.SYSTEM.nanoTime();
    hold(g, Durations.parse(pause, Duration.ofSeconds(5), "--pause"));
    double baseP99 = results.get(0).p99Millis();
    long end = begin + Durations.parse(recoverMax, Duration.ofSeconds(60), "--recover-max").toNanos();
    LoadSnapshot prev = g.snapshot();
    boolean recovered = false;
    while (!recovered && Time.SYSTEM.nanoTime() < end) {
      sleep(Duration.ofSeconds(1));
      LoadSnapshot s = g.snapshot();
      double acked = (s.acked() - prev.acked()) * 1e9 / (s.nanos() - prev.nanos());
      double p99 = millis(s.interval(), 99);
      recovered = acked >= 0.9 * rate && p99 <= 2 * baseP99;
      prev = s;
    }
    int last = results.size() - 1;
    results.set(last, results.get(last).withRecovery(recovered ? (Time.SYSTEM.nanoTime() - begin) / 1e9 : Double.NaN));
    if (!recovered) {
      out.printf("  honest players not recovered within %s after %s%n", recoverMax, results.get(last).name());
    }
  }

  /** Keeps the honest load going for {@code d}, dropping its latencies. */
  private void hold(LoadGenerator g, Duration d) {
    sleep(d);
    g.snapshot();
  }

  private static long directoryBytes(Path dir) {
    if (!Files.isDirectory(dir)) {
      return 0;
    }
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(Files::isRegularFile).mapToLong(p -> {
        try {
          return Files.size(p);
        } catch (IOException e) {
          return 0;
        }
      }).sum();
    } catch (IOException e) {
      return 0;
    }
  }

  private static InetSocketAddress address(URI uri) {
    return new InetSocketAddress(uri.getHost(), uri.getPort());
  }

  private static double millis(Histogram h, double percentile) {
    return h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(percentile) / 1000.0;
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
