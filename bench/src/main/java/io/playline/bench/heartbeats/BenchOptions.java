package io.playline.bench.heartbeats;

import io.playline.bench.common.EndpointsOption;
import io.playline.bench.common.EventsOption;
import io.playline.bench.common.SecretOption;
import io.playline.bench.common.UidBaseOption;
import io.playline.bench.common.ZoneOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The flags of {@code bin/playline bench}, as a picocli mixin. A flag left unset takes the
 * scenario's default (see {@link Scenario}). Plain data; read by {@link BenchRunner}.
 *
 * <p>The flags other commands declare alike are {@code common/} mixins ({@code --endpoints}, {@code
 * --events}, {@code --secret}, {@code --uid-base}, {@code --zone}). Those of the same name that mean
 * something else here, or default to something else, are this command's own: {@code --connections},
 * {@code --rate}, {@code --passes}, {@code --warmup} and {@code --measure} default to the scenario's
 * ({@code bench reads} and {@code bench hostile} have fixed defaults of their own), {@code
 * --baselines} names other baselines than {@code bench reads}', and {@code --log-dir} is where the
 * bench's child processes log, not where it finds the node's logs ({@code bench hostile}'s).
 */
public final class BenchOptions {
  @Option(names = "--scenario", defaultValue = "peak",
      description = "peak | latency | idle | first-today (default: ${DEFAULT-VALUE}).")
  String scenario = "peak";

  @Option(names = "--transport", defaultValue = "ws", description = "ws | grpc (default: ${DEFAULT-VALUE}).")
  String transport = "ws";

  @Mixin EndpointsOption endpoints = new EndpointsOption();

  @Option(names = "--gateway-endpoints", paramLabel = "FILE",
      description = "Endpoints file of an extra running gateway (bin/playline gateway --endpoints-out); repeatable.")
  List<Path> gatewayEndpoints = new ArrayList<>();

  @Option(names = "--spawn-gateways", paramLabel = "N", defaultValue = "0",
      description = "Start N extra gateway-only processes sharing the standalone's backends, and spread the load over them.")
  int spawnGateways;

  @Option(names = "--exclude-standalone", description = "Put no connections on the standalone's own gateway (only on extra gateways).")
  boolean excludeStandalone;

  @Option(names = "--connections", paramLabel = "N", description = "Player connections.")
  @Nullable Integer connections;

  @Option(names = "--rate", paramLabel = "PER_S", description = "Offered heartbeats per second in total (rate pacing).")
  @Nullable Double rate;

  @Option(names = "--interval", paramLabel = "MIN[..MAX]",
      description = "Per-connection heartbeat interval instead of a total rate, e.g. 15s or 15s..30s.")
  @Nullable String interval;

  @Mixin EventsOption events = new EventsOption();

  @Option(names = "--window", paramLabel = "N", description = "Unacked heartbeats per connection before it skips one.")
  @Nullable Integer window;

  @Option(names = "--flag", paramLabel = "MODE", split = ",",
      description = "today | learned | none: what clients echo as flag_date; several = one Playline run each.")
  @Nullable List<String> flagModes;

  @Option(names = "--tls", paramLabel = "MODE", split = ",",
      description = "off | on | off,on: players in clear or over TLS (wss); on = extra gateways started with a fresh "
          + "self-signed certificate, as many as --spawn-gateways (at least 1); both = one Playline run each per pass.")
  @Nullable List<String> tlsModes;

  @Option(names = "--passes", paramLabel = "N", description = "Passes, each running Playline and then each baseline.")
  @Nullable Integer passes;

  @Option(names = "--warmup", paramLabel = "DURATION", description = "Warm-up after connecting, e.g. 8s.")
  @Nullable String warmup;

  @Option(names = "--ramp", paramLabel = "DURATION", description = "Ramp of the offered rate within the warm-up.")
  @Nullable String ramp;

  @Option(names = "--measure", paramLabel = "DURATION", description = "Measured window (with --flush-cycles: its upper bound).")
  @Nullable String measure;

  @Option(names = "--baselines", paramLabel = "LIST", split = ",",
      description = "echo,redis | none: baselines run alternating with Playline.")
  @Nullable List<String> baselines;

  @Option(names = "--memory", negatable = true, description = "Sample server RSS and heap per connection (full GCs via jcmd).")
  @Nullable Boolean memory;

  @Option(names = "--flush-cycles", paramLabel = "N", defaultValue = "0",
      description = "Measure Kafka and HBase per heartbeat over N whole write-back flush cycles (one gateway only).")
  int flushCycles;

  @Option(names = "--per-address", paramLabel = "N", defaultValue = "1000",
      description = "Connections per loopback source address 127.0.0.x: keep at or below the node's "
          + "connection.max.new.per.address.burst (1000) and connection.max.per.address, as a real fleet of players "
          + "comes from many addresses.")
  int perAddress = 1000;

  @Option(names = "--per-process", paramLabel = "N", defaultValue = "18000",
      description = "Connections one generator process holds; above it, child generator JVMs share the load.")
  int perProcess = 18000;

  @Option(names = "--connect-rate", paramLabel = "PER_S", defaultValue = "2000", description = "New connections per second.")
  int connectRate = 2000;

  @Option(names = "--io-threads", paramLabel = "N", defaultValue = "2", description = "Generator event loop threads per process.")
  int ioThreads = 2;

  @Option(names = "--frame-limit", paramLabel = "N", defaultValue = "20",
      description = "The server's connection.max.frames.per.second; the offered rate per connection is kept below it.")
  int frameLimit = 20;

  @Mixin SecretOption secret = new SecretOption();

  @Mixin UidBaseOption uidBase = new UidBaseOption();

  @Mixin ZoneOption zone = new ZoneOption();

  @Option(names = "--server-pid", paramLabel = "PID", description = "Server process, when not in the endpoints file.")
  @Nullable Long serverPid;

  @Option(names = "--redis-uri", paramLabel = "URI", description = "Redis for the Redis-alone baseline (default: from the endpoints file).")
  @Nullable String redisUri;

  @Option(names = "--child-jvm-args", paramLabel = "ARGS", defaultValue = "-Xmx768m -XX:+UseParallelGC",
      description = "JVM flags of generator child processes (default: ${DEFAULT-VALUE}).")
  String childJvmArgs = "-Xmx768m -XX:+UseParallelGC";

  @Option(names = "--log-dir", paramLabel = "DIR", description = "Where child processes log (default: the temp dir).")
  @Nullable Path logDir;
}
