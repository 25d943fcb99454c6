package io.playline.bench.reads;

import io.playline.api.ServiceTokens;
import io.playline.bench.common.BenchSettings;
import io.playline.bench.common.Durations;
import io.playline.bench.common.EndpointsOption;
import io.playline.bench.common.MajorCompactOption;
import io.playline.bench.common.PageOption;
import io.playline.bench.common.UidBaseOption;
import io.playline.bench.probe.ProcStats;
import io.playline.core.config.ConfigSource;
import io.playline.core.store.RedisConnections;
import io.playline.core.store.RedisKeys;
import io.playline.roles.endpoints.Endpoints.Field;
import io.playline.roles.endpoints.Endpoints.Serves;
import io.playline.roles.endpoints.Endpoints;
import io.playline.standalone.PlaylineCli;
import io.playline.time.Time;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code bin/playline bench reads}: what the internal History API's reads cost, against the store
 * alone running the plain commands such a read needs, alternating pass by pass. Users are seeded
 * through the API's {@code Report} (as a backend reporting plays would), then each kind of read
 * runs closed-loop with a fixed number of requests in flight over a few HTTP/2 connections, and the
 * same number of store-alone requests in flight (Redis: pipelined on one Lettuce connection):
 *
 * <ul>
 *   <li>{@code progress}: {@code GetProgress} of {@code --batch} random items of a random user;
 *       Redis alone: {@code HMGET} of those fields of the user's records and tombstones; with {@code
 *       --users-per-call N} above 1, a {@code BatchGetProgress} of N such lookups, and Redis alone
 *       runs N users' commands per request;
 *   <li>{@code page}: {@code ListHistory} first page of {@code --page} records, warm; Redis alone:
 *       {@code ZREVRANGE 0 page-1 WITHSCORES} of the timeline, then {@code HMGET} of those members;
 *   <li>{@code list-connect}: the same page over the API's HTTP port as Connect JSON ({@link
 *       ConnectReads}), against the same Redis alone;
 *   <li>{@code stream-progress}, {@code stream-page}: the same over player WebSockets;
 *   <li>{@code cold}, {@code deep}, {@code deep-chunks}: pages that read HBase, against HBase alone
 *       ({@link StoredReads}); {@code stream-cold}, {@code stream-deep}, {@code stream-deep-chunks}:
 *       the same over player WebSockets, one per cold or deep user.
 * </ul>
 *
 * Reported per run: requests/s, latency p50/p99/p99.9, CPU per request of the server process (and,
 * of it, of its player I/O loops: an internal-API read should cost them nothing), of redis-server
 * and of this process, and the ratio to the store alone. With {@code --paced F}, each
 * Playline read also runs open-loop at F times the rate its closed-loop run of the same pass
 * reached (latency from each request's intended start, so a stalled server shows as latency, not
 * as a lower rate): the latency at a load the server is not saturated by. Control thread only.
 */
@Command(name = "reads", mixinStandardHelpOptions = true,
    description = {"Reads over the internal History API and the player stream (GetProgress, ListHistory first page,",
        "cold and deep pages) against Redis or HBase alone running the plain commands of each read, alternating",
        "pass by pass. Needs a running standalone."})
public final class ReadsCommand implements Callable<Integer> {
  @Mixin EndpointsOption endpoints = new EndpointsOption();

  // --items, --set, --passes, --warmup, --measure and --baselines are this command's own, not common/
  // mixins: bench heavy's --items counts the heavy user's items (100 000) and its --set configures the run
  // itself, not the standalone; bench's --passes, --warmup and --measure default to its scenario's, and its
  // --baselines names other baselines (echo, redis).
  @Option(names = "--kind", split = ",", defaultValue = "progress,page", description = "progress, page (over the "
      + "internal API), list-connect (the page over the API's HTTP port as Connect JSON, HTTP/1.1 keep-alive, one request in flight per connection), "
      + "stream-progress, stream-page (the same reads as ProgressQuery / HistoryQuery frames over "
      + "player WebSockets, one per seeded user, one query in flight and at most 15/s each), cold (a first page "
      + "of a user in HBase only), deep, deep-chunks (a page past Redis of users whose older records are live "
      + "cells / rolled-up chunks), stream-cold, stream-deep, stream-deep-chunks (the same as HistoryQuery frames, "
      + "one player per cold or deep user) (default: ${DEFAULT-VALUE}).")
  List<String> kinds = List.of("progress", "page");

  @Option(names = "--users", defaultValue = "2000", description = "Users seeded (default: ${DEFAULT-VALUE}).")
  int users;

  @Option(names = "--items", defaultValue = "100", description = "Items per seeded user (default: ${DEFAULT-VALUE}).")
  int items;

  @Option(names = "--cold-users", defaultValue = "2000", description = "Users in HBase only for cold reads, each with "
      + "--items items (default: ${DEFAULT-VALUE}; more than reads in flight).")
  int coldUsers;

  @Option(names = "--deep-users", defaultValue = "100", description = "Users per deep kind (default: ${DEFAULT-VALUE}).")
  int deepUsers;

  @Option(names = "--deep-items", defaultValue = "3000", description = "Items of each deep user: more than "
      + "history.redis.max.items and, for deep-chunks, than history.compact.threshold (default: ${DEFAULT-VALUE}).")
  int deepItems;

  @Option(names = "--set", paramLabel = "KEY=VALUE", description = "A setting the standalone runs with, on top of "
      + "its environment: data.dir, auth.secret, api.secret, and what the HBase reads depend on (hbase.table, "
      + "history.redis.max.items, history.compact.*, retention).")
  Map<String, String> settings = Map.of();

  @Mixin MajorCompactOption compaction = new MajorCompactOption();

  @Option(names = "--batch", defaultValue = "10", description = "Items per GetProgress (default: ${DEFAULT-VALUE}).")
  int batch;

  @Option(names = "--users-per-call", defaultValue = "1", description = "Users per progress call: 1 sends "
      + "GetProgress, more a BatchGetProgress of that many users' GetProgress, and Redis alone runs that many users' "
      + "commands per request; req/s and CPU per request are then per call of that many users. The server takes "
      + "at most query.batch.max.requests users and query.batch.max.items items a call (default: ${DEFAULT-VALUE}).")
  int usersPerCall;

  @Mixin PageOption pages = new PageOption();

  @Option(names = "--concurrency", defaultValue = "64", description = "Requests in flight (default: ${DEFAULT-VALUE}).")
  int concurrency;

  @Option(names = "--channels", defaultValue = "4", description = "HTTP/2 connections to the API (default: ${DEFAULT-VALUE}).")
  int channels;

  @Option(names = "--passes", defaultValue = "3", description = "Passes (default: ${DEFAULT-VALUE}).")
  int passes;

  @Option(names = "--warmup", defaultValue = "5s", description = "Warm-up of each run (default: ${DEFAULT-VALUE}).")
  String warmup;

  @Option(names = "--measure", defaultValue = "10s", description = "Measured window of each run (default: ${DEFAULT-VALUE}).")
  String measure;

  @Option(names = "--baselines", defaultValue = "alone", description = "alone (each read's store alone: Redis, or "
      + "HBase for cold and deep reads; 'redis' means the same) | none (default: ${DEFAULT-VALUE}).")
  String baselines;

  @Option(names = "--key-prefix", defaultValue = "pl:", description = "The server's redis.key.prefix (default: ${DEFAULT-VALUE}).")
  String keyPrefix;

  @Option(names = "--paced", defaultValue = "0", description = "Also run each Playline read open-loop at this "
      + "fraction of the rate its closed-loop run reached in the same pass, e.g. 0.5 (default: ${DEFAULT-VALUE} = off).")
  double paced;

  @Option(names = "--heartbeats", defaultValue = "0", description = "Player connections (WebSocket, users of their own) "
      + "that send one-event heartbeats every --heartbeat-interval beside every run: a mixed load (default: "
      + "${DEFAULT-VALUE} = reads only).")
  int heartbeatConnections;

  @Option(names = "--heartbeat-interval", defaultValue = "15s", description = "Each heartbeat connection's interval "
      + "(default: ${DEFAULT-VALUE}).")
  String heartbeatInterval;

  private static final List<String> KINDS = List.of("progress", "page", "list-connect", "stream-progress",
      "stream-page", "cold",
      "deep", "deep-chunks", "stream-cold", "stream-deep", "stream-deep-chunks");
  private static final List<String> HBASE_KINDS = List.of("cold", "deep", "deep-chunks");

  @Mixin UidBaseOption uidBase = new UidBaseOption();

  @Override
  public Integer call() throws Exception {
    checkArguments();
    List<String> reads = kinds.stream().map(ReadsCommand::read).distinct().toList();
    boolean stored = reads.stream().anyMatch(HBASE_KINDS::contains);
    ConfigSource config = BenchSettings.load(settings);
    Endpoints root = Endpoints.read(endpoints.file(config), needs(stored));
    String redisUri = root.redisUri().orElseThrow();
    Long pid = root.pid();
    long serverPid = pid == null ? -1 : pid;
    long redisPid = redisPid(redisUri);
    // bench's random blocks lie below 10 000 000; the stored users go up to base + 40 000 000 + their count.
    long base = uidBase.uidBase(() -> 50_000_000L + ThreadLocalRandom.current().nextInt(1000) * 100_000L);
    int page = pages.page();
    Duration warm = Durations.parse(warmup, Duration.ofSeconds(5), "--warmup");
    Duration window = Durations.parse(measure, Duration.ofSeconds(10), "--measure");
    System.out.printf("Playline bench reads: %s, %d users x %d items, batch %d, %d user(s) per progress call, page %d, "
        + "%d in flight over %d connections, %d pass(es), server pid %d, redis-server pid %d%n", kinds, users, items,
        batch, usersPerCall, page, concurrency, channels, passes, serverPid, redisPid);

    String bearer = "Bearer " + ServiceTokens.mint(BenchSettings.apiSecret(config), "bench", Duration.ofHours(6),
        Time.SYSTEM.instant());
    List<ReadLoops.Result> results = new ArrayList<>();
    RedisKeys keys = new RedisKeys(keyPrefix);
    WarmReads seeded = new WarmReads(base, users, items, batch, page, usersPerCall);
    ApiChannels api = new ApiChannels(root.serves(Serves::api).orElseThrow(), bearer, channels);
    try (ConnectReads connect = !kinds.contains("list-connect") ? null
            : new ConnectReads(root.serves(Serves::apiHttp).orElseThrow(), bearer, Math.min(page, items));
        ReadPlayers players = new ReadPlayers(root, BenchSettings.authSecret(config, PlaylineCli.DEV_SECRET));
        RedisConnections redis = RedisConnections.connect(redisUri, false, Duration.ofSeconds(10));
        StoredReads hbase = stored ? new StoredReads(root, config, base, coldUsers, items, deepUsers, deepItems,
            page, redis, keys) : null) {
      if (reads.stream().anyMatch(k -> !HBASE_KINDS.contains(k))) {
        seeded.seed(api.stubs());
      }
      if (hbase != null) {
        hbase.seed(reads, compaction.majorCompact());
        hbase.warmDeep(reads, api::stub);
      }
      if (heartbeatConnections > 0) {
        players.startHeartbeats(heartbeatConnections,
            Durations.parse(heartbeatInterval, Duration.ofSeconds(15), "--heartbeat-interval"), base);
      }
      Run run = new Run(new ReadLoops(concurrency, serverPid, redisPid, players::heartbeats), api, connect, players,
          seeded, hbase, redis, keys, base, warm, window);
      for (int pass = 1; pass <= passes; pass++) {
        for (String kind : kinds) {
          runKind(run, kind, pass, results);
        }
      }
    } finally {
      api.shutdown();
    }
    ReadsReport.print(results, kinds, String.format(Locale.ROOT, "Playline bench reads: %d users x %d items, batch %d, "
        + "%d user(s) per progress call, page %d, %d in flight, %d pass(es), %d cores, %s", users, items, batch,
        usersPerCall, page, concurrency, passes,
        Runtime.getRuntime().availableProcessors(),
        java.time.LocalDate.ofInstant(Time.SYSTEM.instant(), java.time.ZoneId.systemDefault())));
    return 0;
  }

  private void checkArguments() {
    for (String kind : kinds) {
      if (!KINDS.contains(kind)) {
        throw new IllegalArgumentException("--kind " + kind + " is none of " + KINDS);
      }
    }
    if (!List.of("alone", "redis", "none").contains(baselines)) {
      throw new IllegalArgumentException("--baselines " + baselines + " is none of alone, none");
    }
    if (usersPerCall < 1 || usersPerCall > 10_000) {
      throw new IllegalArgumentException("--users-per-call " + usersPerCall + " (expected: 1..10000)");
    }
  }

  /** What one run's kinds read through and against, once everything is seeded. */
  private record Run(ReadLoops loops, ApiChannels api, @Nullable ConnectReads connect, ReadPlayers players,
      WarmReads seeded, @Nullable StoredReads hbase, RedisConnections redis, RedisKeys keys, long base,
      Duration warm, Duration window) {}

  /**
   * One kind in one pass: Playline closed-loop (over the API, Connect JSON or player streams), paced
   * if asked, then the store alone unless --baselines none; each result added to {@code results}.
   */
  private void runKind(Run run, String kind, int pass, List<ReadLoops.Result> results) throws Exception {
    boolean stream = kind.startsWith("stream-");
    String read = read(kind);
    StoredReads hbase = run.hbase();
    long serverPid = run.loops().serverPid();
    Supplier<CompletionStage<?>> viaApi = () -> switch (kind) {
      case "cold" -> hbase.apiCold(run.api().stub());
      case "deep", "deep-chunks" -> hbase.apiDeep(run.api().stub(), kind.equals("deep-chunks"));
      case "list-connect" -> run.connect().page(run.seeded().randomUser(), pages.page());
      default -> run.seeded().api(kind, run.api().stub());
    };
    StoredReads.StreamPlayers who = !stream ? null : switch (read) {
      case "cold" -> hbase.streamCold();
      case "deep", "deep-chunks" -> hbase.streamDeep(read.equals("deep-chunks"));
      default -> new StoredReads.StreamPlayers(run.base(), users, () -> { }, null);
    };
    ReadLoops.Result closed = stream
        ? run.players().streamRun(run.loops(), "playline-" + kind, pass, 0, run.warm(), run.window(), who)
        : run.loops().closed("playline-" + kind, pass, run.warm(), run.window(), serverPid, viaApi);
    results.add(closed);
    if (paced > 0) {
      String name = String.format(Locale.ROOT, "playline-%s@%.2f", kind, paced);
      double rate = closed.perSecond() * paced;
      results.add(stream ? run.players().streamRun(run.loops(), name, pass, rate, run.warm(), run.window(), who)
          : run.loops().paced(name, pass, rate, run.warm(), run.window(), viaApi));
    }
    if (baselines.equals("none")) {
      return;
    }
    if (HBASE_KINDS.contains(read)) {
      // HBase runs in the standalone's JVM: its CPU is the server column.
      results.add(run.loops().closed("hbase-" + kind, pass, run.warm(), run.window(), serverPid,
          () -> read.equals("cold") ? hbase.hbaseCold() : hbase.hbaseDeep(read.equals("deep-chunks"))));
    } else {
      results.add(run.loops().closed("redis-" + kind, pass, run.warm(), run.window(), -1,
          () -> run.seeded().redis(read, run.redis().shared(), run.keys())));
    }
  }

  /** The fields of the endpoints file a run needs: the API and Redis, the gateway for players, HBase for stored reads. */
  private Field[] needs(boolean stored) {
    List<Field> needed = new ArrayList<>(List.of(Field.API, Field.REDIS_URI));
    if (kinds.contains("list-connect")) {
      needed.add(Field.API_HTTP);
    }
    if (heartbeatConnections > 0 || kinds.stream().anyMatch(k -> k.startsWith("stream-"))) {
      needed.add(Field.WEBSOCKET);
    }
    if (stored) {
      needed.addAll(List.of(Field.HBASE_ZOOKEEPER_QUORUM, Field.HBASE_ZOOKEEPER_PORT));
    }
    return needed.toArray(Field[]::new);
  }

  /** What a kind reads: {@code stream-X} as {@code X} over the player stream, {@code list-connect} as {@code page}. */
  private static String read(String kind) {
    return kind.equals("list-connect") ? "page" : kind.startsWith("stream-") ? kind.substring("stream-".length()) : kind;
  }

  private static long redisPid(String uri) {
    int port = URI.create(uri).getPort();
    long pid = ProcStats.findPid("redis-server", ":" + port);
    return pid >= 0 ? pid : ProcStats.findPid("redis-server", "--port " + port);
  }
}
