package io.playline.bench.heartbeats;

import io.playline.bench.common.BenchSettings;
import io.playline.bench.common.Durations;
import io.playline.bench.heartbeats.baseline.RedisMixLoad;
import io.playline.bench.heartbeats.report.BenchReport;
import io.playline.bench.heartbeats.report.ReportMath;
import io.playline.bench.heartbeats.report.RunResult;
import io.playline.bench.load.ChildFleet;
import io.playline.bench.load.Fleet;
import io.playline.bench.load.LoadGenerator;
import io.playline.bench.load.LoadSpec;
import io.playline.bench.load.LoadSpec.FlagMode;
import io.playline.bench.probe.LoadTarget;
import io.playline.bench.probe.ProcStats;
import io.playline.bench.probe.ServerProbe;
import io.playline.core.config.ConfigSource;
import io.playline.time.Time;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Runs one benchmark invocation: resolves the scenario and flags, finds (or starts) the servers,
 * then for each pass runs Playline and right after it each baseline (Redis alone with the command
 * mix and batch size that Playline pass measured; the bare echo server at the same offered load),
 * and prints the report with medians and ratios. Everything it starts it stops, bounded.
 *
 * <p>Runs on the calling thread.
 */
public final class BenchRunner {
  private final BenchOptions o;
  private final BenchEnvironment env;
  private final PrintStream out;
  private final Scenario s;

  private BenchRunner(BenchOptions o, BenchEnvironment env, PrintStream out) {
    this.o = o;
    this.env = env;
    this.out = out;
    this.s = Scenario.named(o.scenario);
  }

  /** Runs the benchmark; returns the exit code (0 even when targets are missed: misses are results). */
  public static int run(BenchOptions options, BenchEnvironment env, PrintStream out) throws IOException {
    return new BenchRunner(options, env, out).run();
  }

  private int run() throws IOException {
    int connections = o.connections != null ? o.connections : s.connections();
    int passes = o.passes != null ? o.passes : s.passes();
    Duration warmup = Durations.parse(o.warmup, s.warmup(), "--warmup");
    Duration ramp = Durations.parse(o.ramp, s.ramp(), "--ramp");
    Duration measure = Durations.parse(o.measure, s.measure(), "--measure");
    List<String> baselines = o.baselines != null ? o.baselines : s.baselines();
    boolean memory = o.memory != null ? o.memory : s.memory();
    List<FlagMode> modes = o.flagModes == null ? s.flagModes()
        : o.flagModes.stream().map(m -> FlagMode.valueOf(m.trim().toUpperCase(Locale.ROOT))).toList();
    long[] interval = o.rate != null && o.interval == null ? new long[] {0, 0} : interval(o.interval, s);
    double rate = interval[0] > 0 ? 0 : o.rate != null ? o.rate : s.ratePerConnection() * connections;
    if (interval[0] == 0 && connections > 0 && rate / connections > 0.9 * o.frameLimit) {
      out.printf("WARNING: %.1f heartbeats/s per connection is near the server's limit of %d frames/s: expect "
          + "RATE_LIMITED errors; use more --connections%n", rate / connections, o.frameLimit);
    }
    ConfigSource config = BenchSettings.load(Map.of());
    String secret = o.secret.secret(config, env.devSecret());
    Path logDir = o.logDir != null ? o.logDir : Path.of(System.getProperty("java.io.tmpdir"));
    Path endpointsFile = o.endpoints.file(config);
    LoadTarget standalone = LoadTarget.read(endpointsFile);
    long uidBase = o.uidBase.uidBase(() -> 1 + ThreadLocalRandom.current().nextInt(50) * 200_000L);

    List<LoadTarget> gateways = new ArrayList<>();
    if (!o.excludeStandalone) {
      gateways.add(o.serverPid == null ? standalone
          : new LoadTarget(o.serverPid, standalone.websocket(), standalone.grpc(), standalone.admin(), standalone.redisUri()));
    }
    for (Path p : o.gatewayEndpoints) {
      gateways.add(LoadTarget.read(p));
    }
    String redisUri = o.redisUri != null ? o.redisUri : standalone.redisUri();
    ServerProbe redis = redisProbe(redisUri);
    out.printf("Playline bench: scenario %s, %s, %d connections, %s, %d pass(es), baselines %s, users from %d, "
        + "load average %s%n", s.name(), o.transport, connections, interval[0] > 0 ? "every " + interval[0] + ".." + interval[1] + " ms"
            : String.format(Locale.ROOT, "%.0f heartbeats/s offered", rate), passes, baselines, uidBase, loadAverage());
    List<Boolean> tlsModes = tlsModes();
    List<RunResult> results = new ArrayList<>();
    try (GatewayProcesses spawned = spawn(endpointsFile.toAbsolutePath(), secret, logDir);
        GatewayProcesses tlsGateways = tlsModes.contains(true) ? spawnTls(endpointsFile.toAbsolutePath(), secret, logDir)
            : null;
        EchoChild echo = baselines.contains("echo") && o.transport.equals("ws") ? EchoChild.start(logDir) : null) {
      gateways.addAll(spawned.endpoints());
      if (gateways.isEmpty() && tlsModes.contains(false)) {
        throw new IllegalArgumentException("no gateway to load: drop --exclude-standalone or add gateways");
      }
      if (tlsModes.size() > 1 && !(o.excludeStandalone && o.spawnGateways > 0 && o.gatewayEndpoints.isEmpty())) {
        out.println("WARNING: --tls off,on compares unlike servers unless the clear side is spawned gateways too: "
            + "add --exclude-standalone --spawn-gateways N");
      }
      for (int pass = 1; pass <= passes; pass++) {
        for (boolean tls : tlsModes) {
          List<LoadTarget> set = tls ? tlsGateways.endpoints() : gateways;
          List<ServerProbe> probes = new ArrayList<>();
          List<URI> targets = new ArrayList<>();
          for (int i = 0; i < set.size(); i++) {
            LoadTarget e = set.get(i);
            probes.add(e.probe(tls ? "gateway-tls-" + i : i == 0 && !o.excludeStandalone ? "playline" : "gateway-" + i));
            targets.add(o.transport.equals("grpc") ? e.grpc() : e.websocket());
          }
          for (int m = 0; m < modes.size(); m++) {
            FlagMode mode = modes.get(m);
            String kind = (modes.size() > 1 ? "playline-" + mode.name().toLowerCase(Locale.ROOT) : "playline")
                + (tls ? "-tls" : "");
            LoadSpec spec = spec(o.transport, targets, connections, secret,
                uidBase + (long) (m + (tls ? modes.size() : 0)) * connections, mode, interval, s.window());
            LoadRun.Plan plan = new LoadRun.Plan(kind, pass, connections, rate, ramp, warmup, measure, memory,
                o.flushCycles);
            RunResult r = new LoadRun(plan, probes, redis, out).execute(fleet(spec, logDir));
            results.add(r);
            if (m == 0 && !tls && baselines.contains("redis") && redisUri != null) {
              results.add(redisAlone(r, pass, redisUri, redis, connections, uidBase, measure));
            }
          }
        }
        if (echo != null) {
          LoadSpec spec = spec("ws", List.of(URI.create("ws://127.0.0.1:" + echo.port() + "/v1/stream")), connections,
              secret, uidBase, modes.get(0), interval, s.window());
          LoadRun.Plan plan = new LoadRun.Plan("echo", pass, connections, rate, ramp, warmup, measure, memory, 0);
          results.add(new LoadRun(plan, List.of(echo.probe()), null, out).execute(fleet(spec, logDir)));
        }
      }
    }
    BenchReport.print(out, describe(connections, rate, interval, passes), results);
    return 0;
  }

  private String describe(int connections, double rate, long[] interval, int passes) {
    return String.format(Locale.ROOT, "scenario %s, transport %s, %d connections, %s, %d events/heartbeat, %d pass(es), "
        + "%d cores, %s", s.name(), o.transport, connections, interval[0] > 0 ? "heartbeat every " + interval[0] + ".."
        + interval[1] + " ms" : String.format(Locale.ROOT, "%.0f heartbeats/s offered", rate), o.events.events(), passes,
        Runtime.getRuntime().availableProcessors(),
        java.time.LocalDate.ofInstant(Time.SYSTEM.instant(), ZoneId.systemDefault())) + ", load average "
        + loadAverage();
  }

  /** The 1-minute load average: how busy the shared machine was (other processes compete for the cores). */
  private static String loadAverage() {
    try {
      return java.nio.file.Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
    } catch (IOException | RuntimeException e) {
      return "?";
    }
  }

  private LoadSpec spec(String transport, List<URI> targets, int connections, String secret, long uidBase,
      FlagMode mode, long[] interval, int scenarioWindow) {
    int window = o.window != null ? o.window : scenarioWindow;
    return new LoadSpec(transport, targets, 0, connections, o.perAddress, 2, secret, uidBase, mode, o.zone.zone(),
        o.events.events(), window, o.connectRate, o.ioThreads, interval[0], interval[1]);
  }

  private Supplier<Fleet> fleet(LoadSpec spec, Path logDir) {
    return () -> {
      if (spec.connections() <= o.perProcess) {
        return LoadGenerator.start(spec);
      }
      try {
        List<String> jvm = new ArrayList<>(Arrays.asList(o.childJvmArgs.trim().split("\\s+")));
        return ChildFleet.start(spec, o.perProcess, jvm, logDir);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    };
  }

  private RunResult redisAlone(RunResult playline, int pass, String redisUri, @Nullable ServerProbe redis,
      int connections, long uidBase, Duration measure) {
    double batch = playline.get(RunResult.BATCH);
    int batchSize = Double.isFinite(batch) && batch >= 1 ? (int) Math.round(batch)
        : Math.max(1, 512 / Math.max(1, o.events.events()));
    double ft = playline.get(RunResult.FIRST_TODAY_PER_HB);
    double lookups = playline.get(RunResult.PUSH_LOOKUPS);
    RedisMixLoad.Mix mix = new RedisMixLoad.Mix(batchSize, o.events.events(), Double.isFinite(ft) ? Math.min(1, ft) : 0,
        Double.isFinite(lookups) ? Math.min(1, lookups) : 0, Math.max(1, connections), uidBase, 8);
    out.printf("  redis    p%d batches of %d heartbeats, first-today fraction %.4f, push-registry lookup fraction %.4f,"
        + " 8 in flight, %ds%n", pass, batchSize, mix.firstTodayFraction(), mix.lookupFraction(), measure.toSeconds());
    long[] cpu = new long[4];
    long self = ProcessHandle.current().pid();
    RedisMixLoad.Result r;
    try {
      r = RedisMixLoad.run(redisUri, Map.of(), mix, Duration.ofSeconds(3), measure, () -> {
        cpu[0] = redis == null ? -1 : ProcStats.cpuNanos(redis.pid());
        cpu[1] = ProcStats.cpuNanos(self);
      }, () -> {
        cpu[2] = redis == null ? -1 : ProcStats.cpuNanos(redis.pid());
        cpu[3] = ProcStats.cpuNanos(self);
      });
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
    Map<String, Double> f = new LinkedHashMap<>();
    f.put(RunResult.ACKED, r.perSecond());
    f.put(RunResult.BATCH, (double) batchSize);
    f.put(RunResult.REDIS_RT, ReportMath.perHeartbeat(r.roundTrips(), r.heartbeats()));
    f.put(RunResult.CPU_REDIS, cpu[0] < 0 ? Double.NaN : ReportMath.perHeartbeat((cpu[2] - cpu[0]) / 1000.0, r.heartbeats()));
    // The bench JVM itself drives Redis here (Lettuce client): its CPU is this baseline's "generator".
    f.put(RunResult.CPU_GENERATOR, ReportMath.perHeartbeat((cpu[3] - cpu[1]) / 1000.0, r.heartbeats()));
    out.printf(Locale.ROOT, "  redis    p%d %.0f heartbeats/s%n", pass, r.perSecond());
    return new RunResult("redis", pass, f, Map.of(), Map.of());
  }

  private GatewayProcesses spawn(Path backends, String secret, Path logDir) throws IOException {
    if (o.spawnGateways > 0 && env.gatewayCommand().isEmpty()) {
      throw new IllegalArgumentException("--spawn-gateways: this launcher cannot start gateway processes");
    }
    return GatewayProcesses.start(env.gatewayCommand(), backends, secret, o.spawnGateways, logDir);
  }

  /** The --tls modes in order: false = clear, true = TLS. */
  private List<Boolean> tlsModes() {
    if (o.tlsModes == null) {
      return List.of(false);
    }
    List<Boolean> modes = new ArrayList<>();
    for (String m : o.tlsModes) {
      switch (m.trim().toLowerCase(Locale.ROOT)) {
        case "off" -> modes.add(false);
        case "on" -> modes.add(true);
        default -> throw new IllegalArgumentException("--tls: '" + m + "' (expected: off, on or off,on)");
      }
    }
    if (modes.contains(true) && o.transport.equals("grpc")) {
      throw new IllegalArgumentException("--tls on: only with --transport ws (the bench's gRPC client speaks plaintext)");
    }
    return List.copyOf(new java.util.LinkedHashSet<>(modes));
  }

  /**
   * Gateways like the spawned ones (same count, at least 1) serving players over TLS, with a
   * self-signed RSA-2048 certificate made for this run.
   */
  private GatewayProcesses spawnTls(Path backends, String secret, Path logDir) throws IOException {
    if (env.gatewayCommand().isEmpty()) {
      throw new IllegalArgumentException("--tls on: this launcher cannot start gateway processes");
    }
    Path dir = java.nio.file.Files.createTempDirectory(logDir, "bench-tls-");
    Path cert = dir.resolve("gateway.crt");
    Path key = dir.resolve("gateway.key");
    // Removed when the bench exits (after its gateways): files first, then the directory.
    dir.toFile().deleteOnExit();
    cert.toFile().deleteOnExit();
    key.toFile().deleteOnExit();
    try {
      io.netty.handler.ssl.util.SelfSignedCertificate self = new io.netty.handler.ssl.util.SelfSignedCertificate("localhost");
      java.nio.file.Files.copy(self.certificate().toPath(), cert);
      java.nio.file.Files.copy(self.privateKey().toPath(), key);
      self.delete();
    } catch (java.security.cert.CertificateException e) {
      throw new IOException("cannot make the bench's self-signed certificate", e);
    }
    return GatewayProcesses.start(env.gatewayCommand(), backends, secret, Math.max(1, o.spawnGateways), logDir,
        "bench-gateway-tls-", List.of("tls.cert=" + cert, "tls.key=" + key));
  }

  private static @Nullable ServerProbe redisProbe(@Nullable String uri) {
    if (uri == null) {
      return null;
    }
    int port = URI.create(uri).getPort();
    long pid = ProcStats.findPid("redis-server", ":" + port);
    if (pid < 0) {
      pid = ProcStats.findPid("redis-server", "--port " + port);
    }
    return pid < 0 ? null : new ServerProbe("redis", pid, null);
  }

  /** {@code [min, max]} ms of interval pacing, or {@code [0, 0]} for rate pacing. */
  static long[] interval(@Nullable String flag, Scenario s) {
    if (flag == null) {
      return new long[] {s.intervalMin().toMillis(), s.intervalMax().toMillis()};
    }
    String[] parts = flag.split("\\.\\.");
    long min = Durations.parse(parts[0], Duration.ZERO, "--interval").toMillis();
    long max = parts.length > 1 ? Durations.parse(parts[1], Duration.ZERO, "--interval").toMillis() : min;
    if (min <= 0 || max < min) {
      throw new IllegalArgumentException("--interval: '" + flag + "' (expected: e.g. 15s or 15s..30s)");
    }
    return new long[] {min, max};
  }
}
