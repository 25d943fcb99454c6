package io.playline.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import io.lettuce.core.KeyValue;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.playline.api.ServiceTokens;
import io.playline.bench.load.LoadGenerator;
import io.playline.bench.load.LoadSnapshot;
import io.playline.bench.load.LoadSpec;
import io.playline.bench.probe.ProcStats;
import io.playline.core.store.RedisConnections;
import io.playline.core.store.RedisKeys;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.GetProgressRequest;
import io.playline.proto.v1.GetProgressResponse;
import io.playline.proto.v1.HistoryGrpc;
import io.playline.proto.v1.ItemKey;
import io.playline.proto.v1.ListHistoryRequest;
import io.playline.proto.v1.ListHistoryResponse;
import io.playline.proto.v1.PlayEvent;
import io.playline.proto.v1.ReportRequest;
import io.playline.standalone.PlaylineCli;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.HdrHistogram.Recorder;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code bin/playline bench reads}: what the internal History API's reads cost, against Redis
 * alone running the plain commands such a read needs, alternating pass by pass. Users are seeded
 * through the API's {@code Report} (as a backend reporting plays would), then each kind of read
 * runs closed-loop with a fixed number of requests in flight over a few HTTP/2 connections, and the
 * same number of Redis-alone requests in flight over Lettuce (pipelined on one connection):
 *
 * <ul>
 *   <li>{@code progress}: {@code GetProgress} of {@code --batch} random items of a random user;
 *       Redis alone: {@code HMGET} of those fields of the user's records and tombstones;
 *   <li>{@code page}: {@code ListHistory} first page of {@code --page} records, warm; Redis alone:
 *       {@code ZREVRANGE 0 page-1 WITHSCORES} of the timeline, then {@code HMGET} of those members.
 * </ul>
 *
 * Reported per run: requests/s, latency p50/p99/p99.9, CPU per request of the server process, of
 * redis-server and of this process, and the ratio to Redis alone. With {@code --paced F}, each
 * Playline read also runs open-loop at F times the rate its closed-loop run of the same pass
 * reached (latency from each request's intended start, so a stalled server shows as latency, not
 * as a lower rate): the latency at a load the server is not saturated by. Control thread only.
 */
@Command(name = "reads", mixinStandardHelpOptions = true,
    description = {"Reads over the internal History API (GetProgress, ListHistory first page) against Redis alone",
        "running the plain commands of each read, alternating pass by pass. Needs a running standalone."})
final class ReadsCommand implements Callable<Integer> {
  @Option(names = "--endpoints", paramLabel = "FILE",
      description = "The standalone's endpoints.json (default: $PLAYLINE_DATA_DIR/endpoints.json, else ./data/endpoints.json).")
  @Nullable Path endpoints;

  @Option(names = "--kind", split = ",", defaultValue = "progress,page", description = "progress, page (over the "
      + "internal API), stream-progress, stream-page (the same reads as ProgressQuery / HistoryQuery frames over "
      + "player WebSockets, one per seeded user, one query in flight and at most 15/s each) (default: "
      + "${DEFAULT-VALUE}).")
  List<String> kinds = List.of("progress", "page");

  @Option(names = "--users", defaultValue = "2000", description = "Users seeded (default: ${DEFAULT-VALUE}).")
  int users;

  @Option(names = "--items", defaultValue = "100", description = "Items per seeded user (default: ${DEFAULT-VALUE}).")
  int items;

  @Option(names = "--batch", defaultValue = "10", description = "Items per GetProgress (default: ${DEFAULT-VALUE}).")
  int batch;

  @Option(names = "--page", defaultValue = "20", description = "Records per ListHistory page (default: ${DEFAULT-VALUE}).")
  int page;

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

  @Option(names = "--baselines", defaultValue = "redis", description = "redis | none (default: ${DEFAULT-VALUE}).")
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

  /** The heartbeat load beside the reads (--heartbeats), or null. */
  private @Nullable LoadGenerator heartbeats;

  /** Queries per second a stream player offers at most: under the gateway's default 20 frames/s per connection. */
  private static final double STREAM_QUERIES_PER_PLAYER = 15;

  /** Requests an open-loop run keeps in flight at most; a due request beyond it is counted as skipped. */
  private static final int PACED_MAX_IN_FLIGHT = 4096;

  @Option(names = "--uid-base", description = "First user id (default: a random block, so runs use fresh users).")
  @Nullable Long uidBase;

  private record Result(String kind, int pass, double perSecond, double p50, double p99, double p999,
      double serverCpu, double redisCpu, double ownCpu, long errors, double heartbeatsPerSecond, double heartbeatP99) {}

  @Override
  public Integer call() throws Exception {
    Path file = endpoints != null ? endpoints
        : Path.of(System.getenv().getOrDefault("PLAYLINE_DATA_DIR", "data")).resolve("endpoints.json");
    JsonNode root = new ObjectMapper().readTree(file.toFile());
    String api = root.path("playline").path("api").asText(null);
    String redisUri = root.path("redis").path("uri").asText(null);
    long serverPid = root.path("pid").asLong(-1);
    if (api == null || redisUri == null) {
      throw new IOException(file + " names no playline.api or redis.uri: is it a standalone's endpoints file?");
    }
    long redisPid = redisPid(redisUri);
    String secret = System.getenv().getOrDefault("PLAYLINE_API_SECRET", PlaylineCli.DEV_API_SECRET);
    long base = uidBase != null ? uidBase : 50_000_000L + ThreadLocalRandom.current().nextInt(1000) * 100_000L;
    Duration warm = BenchOptions.duration(warmup, Duration.ofSeconds(5), "--warmup");
    Duration window = BenchOptions.duration(measure, Duration.ofSeconds(10), "--measure");
    System.out.printf("Playline bench reads: %s, %d users x %d items, batch %d, page %d, %d in flight over %d "
        + "connections, %d pass(es), server pid %d, redis-server pid %d%n", kinds, users, items, batch, page, concurrency,
        channels, passes, serverPid, redisPid);

    Metadata headers = new Metadata();
    headers.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER),
        "Bearer " + ServiceTokens.mint(secret, "bench", Duration.ofHours(6), Instant.now()));
    URI target = URI.create("grpc://" + api);
    List<ManagedChannel> open = new ArrayList<>();
    List<HistoryGrpc.HistoryStub> stubs = new ArrayList<>();
    for (int i = 0; i < channels; i++) {
      ManagedChannel ch = NettyChannelBuilder.forAddress(target.getHost(), target.getPort()).usePlaintext()
          .directExecutor().intercept(MetadataUtils.newAttachHeadersInterceptor(headers)).build();
      open.add(ch);
      stubs.add(HistoryGrpc.newStub(ch));
    }
    List<Result> results = new ArrayList<>();
    try (RedisConnections redis = RedisConnections.connect(redisUri, false, Duration.ofSeconds(10))) {
      seed(stubs, base);
      startHeartbeats(root, base);
      RedisKeys keys = new RedisKeys(keyPrefix);
      for (int pass = 1; pass <= passes; pass++) {
        for (String kind : kinds) {
          boolean stream = kind.startsWith("stream-");
          String read = stream ? kind.substring("stream-".length()) : kind;
          Result closed = stream ? streamRun("playline-" + kind, pass, 0, warm, window, serverPid, redisPid, root, base)
              : run("playline-" + kind, pass, warm, window, serverPid, redisPid, () -> apiRead(kind, stubs, base));
          results.add(closed);
          if (paced > 0) {
            String name = String.format(Locale.ROOT, "playline-%s@%.2f", kind, paced);
            results.add(stream ? streamRun(name, pass, closed.perSecond() * paced, warm, window, serverPid, redisPid,
                root, base) : paced(name, pass, closed.perSecond() * paced, warm, window, serverPid, redisPid,
                () -> apiRead(kind, stubs, base)));
          }
          if (baselines.equals("redis")) {
            results.add(run("redis-" + kind, pass, warm, window, -1, redisPid,
                () -> redisRead(read, redis.shared(), keys, base)));
          }
        }
      }
    } finally {
      if (heartbeats != null) {
        heartbeats.close();
      }
      for (ManagedChannel ch : open) {
        ch.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    }
    report(results);
    return 0;
  }

  /**
   * With --heartbeats, opens that many player connections (users {@code base + 10 000 000 ...}, not
   * the readers') sending one-event heartbeats at the interval, and waits (bounded) until all are open.
   */
  private void startHeartbeats(JsonNode root, long base) throws InterruptedException {
    if (heartbeatConnections <= 0) {
      return;
    }
    long interval = BenchOptions.duration(heartbeatInterval, Duration.ofSeconds(15), "--heartbeat-interval").toMillis();
    heartbeats = players(root, "--heartbeats", heartbeatConnections, base + 10_000_000L, 1, 4, interval,
        LoadSpec.Query.NONE, Duration.ofMinutes(2));
    System.out.printf("  heartbeats: %d of %d connections open, one event every %d ms each%n",
        heartbeats.snapshot().open(), heartbeatConnections, interval);
  }

  /**
   * Starts {@code count} player WebSockets to the endpoints file's gateway (users {@code uidBase ...},
   * tokens signed with {@code $PLAYLINE_AUTH_SECRET}, else the standalone's development secret) and
   * waits, at most {@code openWithin}, until all are open. {@code intervalMs} 0 = rate pacing.
   */
  private static LoadGenerator players(JsonNode root, String purpose, int count, long uidBase, int events, int window,
      long intervalMs, LoadSpec.Query query, Duration openWithin) throws InterruptedException {
    String ws = root.path("playline").path("websocket").asText(null);
    if (ws == null) {
      throw new IllegalStateException("the endpoints file names no playline.websocket for " + purpose);
    }
    String secret = System.getenv().getOrDefault("PLAYLINE_AUTH_SECRET", PlaylineCli.DEV_SECRET);
    LoadGenerator fleet = LoadGenerator.start(new LoadSpec("ws", List.of(URI.create(ws)), 0, count, 5000, 2, secret,
        uidBase, LoadSpec.FlagMode.TODAY, java.time.ZoneId.of("UTC"), events, window, 2000, 1, intervalMs, intervalMs,
        query));
    long deadline = System.nanoTime() + openWithin.toNanos();
    while (fleet.snapshot().open() < count && System.nanoTime() - deadline < 0) {
      Thread.sleep(50);
    }
    return fleet;
  }

  /** Heartbeats acked since the previous call, and their latencies (discarded when only marking the start). */
  private @Nullable LoadSnapshot heartbeatMark() {
    return heartbeats == null ? null : heartbeats.snapshot();
  }

  private static double[] heartbeatFigures(@Nullable LoadSnapshot from, @Nullable LoadSnapshot to) {
    if (from == null || to == null) {
      return new double[] {Double.NaN, Double.NaN};
    }
    double seconds = (to.nanos() - from.nanos()) / 1e9;
    return new double[] {(to.acked() - from.acked()) / seconds, to.interval().getValueAtPercentile(99) / 1000.0};
  }

  /** Writes {@code items} items per user through the API's Report, 32 calls in flight. */
  private void seed(List<HistoryGrpc.HistoryStub> stubs, long base) throws InterruptedException {
    long start = System.nanoTime();
    Semaphore inFlight = new Semaphore(32);
    AtomicLong failed = new AtomicLong();
    long now = System.currentTimeMillis();
    for (int u = 0; u < users; u++) {
      long uid = base + u;
      for (int from = 0; from < items; from += 100) {
        ReportRequest.Builder r = ReportRequest.newBuilder().setUid(uid).setDeviceId("bench").setPlatform("bench");
        for (int k = from; k < Math.min(items, from + 100); k++) {
          r.addEvents(PlayEvent.newBuilder().setBusiness(Business.VIDEO).setOid(k + 1).setProgressMs(1000L * k)
              .setDurationMs(600_000).setEventTimeMs(now - (items - k) * 1000L));
        }
        inFlight.acquire();
        stubs.get(u % stubs.size()).withDeadlineAfter(30, TimeUnit.SECONDS).report(r.build(), new StreamObserver<>() {
          @Override
          public void onNext(io.playline.proto.v1.ReportResponse value) {}

          @Override
          public void onError(Throwable t) {
            failed.incrementAndGet();
            inFlight.release();
          }

          @Override
          public void onCompleted() {
            inFlight.release();
          }
        });
      }
    }
    inFlight.acquire(32);
    if (failed.get() > 0) {
      throw new IllegalStateException(failed.get() + " Report calls failed while seeding");
    }
    System.out.printf("  seeded %d users x %d items in %d ms%n", users, items,
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
  }

  private long randomUser(long base) {
    return base + ThreadLocalRandom.current().nextInt(users);
  }

  private List<Integer> randomOids() {
    List<Integer> oids = new ArrayList<>(batch);
    ThreadLocalRandom r = ThreadLocalRandom.current();
    while (oids.size() < Math.min(batch, items)) {
      int oid = 1 + r.nextInt(items);
      if (!oids.contains(oid)) {
        oids.add(oid);
      }
    }
    return oids;
  }

  private CompletionStage<?> apiRead(String kind, List<HistoryGrpc.HistoryStub> stubs, long base) {
    HistoryGrpc.HistoryStub stub = stubs.get(ThreadLocalRandom.current().nextInt(stubs.size()))
        .withDeadlineAfter(10, TimeUnit.SECONDS);
    long uid = randomUser(base);
    if (kind.equals("progress")) {
      GetProgressRequest.Builder r = GetProgressRequest.newBuilder().setUid(uid);
      for (int oid : randomOids()) {
        r.addItems(ItemKey.newBuilder().setBusiness(Business.VIDEO).setOid(oid));
      }
      Answer<GetProgressResponse> a = new Answer<>(resp -> resp.getRecordsCount() == Math.min(batch, items));
      stub.getProgress(r.build(), a);
      return a.done;
    }
    Answer<ListHistoryResponse> a = new Answer<>(resp -> resp.getRecordsCount() == Math.min(page, items));
    stub.listHistory(ListHistoryRequest.newBuilder().setUid(uid).setLimit(page).build(), a);
    return a.done;
  }

  private CompletionStage<?> redisRead(String kind, RedisClusterAsyncCommands<byte[], byte[]> redis, RedisKeys keys,
      long base) {
    long uid = randomUser(base);
    if (kind.equals("progress")) {
      List<Integer> oids = randomOids();
      byte[][] fields = new byte[oids.size()][];
      for (int i = 0; i < fields.length; i++) {
        fields[i] = (Business.VIDEO.getNumber() + ":" + oids.get(i)).getBytes(StandardCharsets.US_ASCII);
      }
      CompletableFuture<List<KeyValue<byte[], byte[]>>> records = redis.hmget(keys.records(uid), fields).toCompletableFuture();
      CompletableFuture<List<KeyValue<byte[], byte[]>>> tombs = redis.hmget(keys.tombstones(uid), fields).toCompletableFuture();
      return records.thenCombine(tombs, (r, t) -> {
        if (r.stream().filter(KeyValue::hasValue).count() != fields.length) {
          throw new IllegalStateException("Redis alone found " + r.stream().filter(KeyValue::hasValue).count()
              + " of " + fields.length + " seeded records of user " + uid);
        }
        return r;
      });
    }
    byte[] timeline = keys.timeline(uid);
    return redis.zrevrangeWithScores(timeline, 0, page - 1).thenCompose(members -> {
      byte[][] fields = members.stream().map(ScoredValue::getValue).toArray(byte[][]::new);
      return fields.length == 0 ? CompletableFuture.completedFuture(List.<KeyValue<byte[], byte[]>>of())
          : redis.hmget(keys.records(uid), fields);
    });
  }

  /** A unary call's outcome as a stage; a wrong answer (a missing record) fails it. */
  private static final class Answer<T> implements StreamObserver<T> {
    final CompletableFuture<T> done = new CompletableFuture<>();
    private final java.util.function.Predicate<T> complete;
    private @Nullable T value;

    Answer(java.util.function.Predicate<T> complete) {
      this.complete = complete;
    }

    @Override
    public void onNext(T v) {
      value = v;
    }

    @Override
    public void onError(Throwable t) {
      done.completeExceptionally(t);
    }

    @Override
    public void onCompleted() {
      T v = value;
      if (v == null || !complete.test(v)) {
        done.completeExceptionally(new IllegalStateException("incomplete answer: " + v));
      } else {
        done.complete(v);
      }
    }
  }

  /** Runs {@code read} closed-loop with {@link #concurrency} in flight: warm-up, then the measured window. */
  private Result run(String kind, int pass, Duration warm, Duration window, long serverPid, long redisPid,
      Supplier<CompletionStage<?>> read) throws InterruptedException {
    Recorder latency = new Recorder(3);
    AtomicBoolean stop = new AtomicBoolean();
    AtomicBoolean measuring = new AtomicBoolean();
    AtomicLong done = new AtomicLong();
    AtomicLong errors = new AtomicLong();
    AtomicLong firstError = new AtomicLong();
    Semaphore stopped = new Semaphore(0);
    List<Throwable> sample = new java.util.concurrent.CopyOnWriteArrayList<>();
    for (int i = 0; i < concurrency; i++) {
      new Runnable() {
        @Override
        public void run() {
          if (stop.get()) {
            stopped.release();
            return;
          }
          long start = System.nanoTime();
          issue(read).whenComplete((v, error) -> {
            if (measuring.get()) {
              if (error == null) {
                latency.recordValue(Math.max(1, (System.nanoTime() - start) / 1000));
                done.incrementAndGet();
              } else {
                errors.incrementAndGet();
                if (firstError.compareAndSet(0, 1)) {
                  sample.add(error);
                }
              }
            }
            if (error != null) {
              // A failed stage may have completed on this very stack: go on from another one.
              java.util.concurrent.ForkJoinPool.commonPool().execute(this);
            } else {
              run();
            }
          });
        }
      }.run();
    }
    Thread.sleep(warm.toMillis());
    latency.reset();
    long self = ProcessHandle.current().pid();
    long[] before = {cpu(serverPid), cpu(redisPid), ProcStats.cpuNanos(self)};
    LoadSnapshot hbFrom = heartbeatMark();
    long startNanos = System.nanoTime();
    measuring.set(true);
    Thread.sleep(window.toMillis());
    measuring.set(false);
    long elapsed = System.nanoTime() - startNanos;
    double[] hb = heartbeatFigures(hbFrom, heartbeatMark());
    long[] after = {cpu(serverPid), cpu(redisPid), ProcStats.cpuNanos(self)};
    stop.set(true);
    if (!stopped.tryAcquire(concurrency, 30, TimeUnit.SECONDS)) {
      System.out.println("  WARNING: requests still in flight 30 s after the run");
    }
    var h = latency.getIntervalHistogram();
    long n = done.get();
    Result r = new Result(kind, pass, n * 1e9 / elapsed, h.getValueAtPercentile(50) / 1000.0,
        h.getValueAtPercentile(99) / 1000.0, h.getValueAtPercentile(99.9) / 1000.0,
        perRequest(before[0], after[0], n), perRequest(before[1], after[1], n), perRequest(before[2], after[2], n),
        errors.get(), hb[0], hb[1]);
    System.out.printf(Locale.ROOT, "  %-17s p%d %9.0f req/s  p50 %.2f ms  p99 %.2f ms  errors %d%s%s%n", kind, pass,
        r.perSecond, r.p50, r.p99, r.errors, heartbeatNote(r), sample.isEmpty() ? "" : " (first: " + sample.get(0) + ")");
    return r;
  }

  /**
   * Runs {@code read} open-loop at {@code rate} requests/s: warm-up, then the measured window; a
   * request's latency counts from when it was due, not from when it was sent.
   */
  private Result paced(String kind, int pass, double rate, Duration warm, Duration window, long serverPid,
      long redisPid, Supplier<CompletionStage<?>> read) throws InterruptedException {
    Recorder latency = new Recorder(3);
    AtomicLong done = new AtomicLong();
    AtomicLong errors = new AtomicLong();
    AtomicLong inFlight = new AtomicLong();
    long skipped = 0;
    long interval = Math.max(1, (long) (1e9 / rate));
    long start = System.nanoTime();
    long measureFrom = start + warm.toNanos();
    long end = measureFrom + window.toNanos();
    long self = ProcessHandle.current().pid();
    long[] before = null;
    LoadSnapshot hbFrom = null;
    for (long due = start; ; ) {
      long now = System.nanoTime();
      if (now - end >= 0) {
        break;
      }
      if (before == null && now - measureFrom >= 0) {
        before = new long[] {cpu(serverPid), cpu(redisPid), ProcStats.cpuNanos(self)};
        hbFrom = heartbeatMark();
      }
      for (; due - now <= 0; due += interval) {
        if (inFlight.get() >= PACED_MAX_IN_FLIGHT) {
          skipped++;
          continue;
        }
        long intended = due;
        boolean counted = intended - measureFrom >= 0;
        inFlight.incrementAndGet();
        issue(read).whenComplete((v, error) -> {
          inFlight.decrementAndGet();
          if (!counted) {
            return;
          }
          if (error == null) {
            latency.recordValue(Math.max(1, (System.nanoTime() - intended) / 1000));
            done.incrementAndGet();
          } else {
            errors.incrementAndGet();
          }
        });
      }
      java.util.concurrent.locks.LockSupport.parkNanos(Math.min(Math.max(due - System.nanoTime(), 0), 1_000_000));
    }
    double[] hb = heartbeatFigures(hbFrom, heartbeatMark());
    long[] after = {cpu(serverPid), cpu(redisPid), ProcStats.cpuNanos(self)};
    long[] measuredFrom = before != null ? before : after;
    long drainUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (inFlight.get() > 0 && System.nanoTime() - drainUntil < 0) {
      Thread.sleep(5);
    }
    var h = latency.getIntervalHistogram();
    long n = done.get();
    Result r = new Result(kind, pass, n * 1e9 / window.toNanos(), h.getValueAtPercentile(50) / 1000.0,
        h.getValueAtPercentile(99) / 1000.0, h.getValueAtPercentile(99.9) / 1000.0,
        perRequest(measuredFrom[0], after[0], n), perRequest(measuredFrom[1], after[1], n),
        perRequest(measuredFrom[2], after[2], n), errors.get() + skipped, hb[0], hb[1]);
    System.out.printf(Locale.ROOT, "  %-17s p%d %9.0f req/s (offered %.0f)  p50 %.2f ms  p99 %.2f ms  errors %d, "
        + "skipped %d%s%n", kind, pass, r.perSecond, rate, r.p50, r.p99, r.errors - skipped, skipped, heartbeatNote(r));
    return r;
  }

  /**
   * One stream-query run: a player WebSocket per seeded user ({@code base ...}), each with at most
   * one query in flight, open-loop at {@code rate} queries/s in total (latency from each query's due
   * time; a player whose query is still out skips its turn). {@code rate} 0 = the most the players
   * may offer: {@link #STREAM_QUERIES_PER_PLAYER} each, under the gateway's per-connection frame
   * limit ({@code connection.max.frames.per.second}, 20), as real players stay.
   */
  private Result streamRun(String kind, int pass, double rate, Duration warm, Duration window, long serverPid,
      long redisPid, JsonNode root, long base) throws InterruptedException {
    int players = users;
    LoadSpec.Query query = kind.contains("stream-progress") ? LoadSpec.Query.PROGRESS : LoadSpec.Query.PAGE;
    try (LoadGenerator fleet = players(root, kind, players, base, 0, 1, 0, query, Duration.ofSeconds(60))) {
      double offered = rate > 0 ? rate : players * STREAM_QUERIES_PER_PLAYER;
      fleet.setRate(offered, Duration.ZERO);
      Thread.sleep(warm.toMillis());
      long self = ProcessHandle.current().pid();
      long[] before = {cpu(serverPid), cpu(redisPid), ProcStats.cpuNanos(self)};
      LoadSnapshot from = fleet.snapshot();
      LoadSnapshot hbFrom = heartbeatMark();
      Thread.sleep(window.toMillis());
      LoadSnapshot to = fleet.snapshot();
      double[] hb = heartbeatFigures(hbFrom, heartbeatMark());
      long[] after = {cpu(serverPid), cpu(redisPid), ProcStats.cpuNanos(self)};
      long n = to.acked() - from.acked();
      long errors = 0;
      for (int c = 0; c < to.errors().length; c++) {
        errors += to.errors()[c] - from.errors()[c];
      }
      var h = to.interval();
      double seconds = (to.nanos() - from.nanos()) / 1e9;
      Result r = new Result(kind, pass, n / seconds, h.getValueAtPercentile(50) / 1000.0,
          h.getValueAtPercentile(99) / 1000.0, h.getValueAtPercentile(99.9) / 1000.0,
          perRequest(before[0], after[0], n), perRequest(before[1], after[1], n), perRequest(before[2], after[2], n),
          errors, hb[0], hb[1]);
      if (n == 0) {
        System.out.printf("  %s: no answers: %d of %d players open, %d sent, %d skipped, closes %s%n", kind, to.open(),
            players, to.sent() - from.sent(), to.skipped() - from.skipped(), to.closes());
      }
      System.out.printf(Locale.ROOT, "  %-17s p%d %9.0f req/s%s  p50 %.2f ms  p99 %.2f ms  errors %d%s%n", kind, pass,
          r.perSecond, String.format(Locale.ROOT, " (offered %.0f, skipped %d)", offered,
              to.skipped() - from.skipped()), r.p50, r.p99, r.errors, heartbeatNote(r));
      return r;
    }
  }

  /** Starts one read; a read that throws instead of failing its stage fails a stage all the same. */
  private static CompletionStage<?> issue(Supplier<CompletionStage<?>> read) {
    try {
      return read.get();
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private static String heartbeatNote(Result r) {
    return Double.isNaN(r.heartbeatsPerSecond) ? "" : String.format(Locale.ROOT, "  [heartbeats %.0f/s acked, p99 %.2f ms]",
        r.heartbeatsPerSecond, r.heartbeatP99);
  }

  private static long cpu(long pid) {
    return pid <= 0 ? -1 : ProcStats.cpuNanos(pid);
  }

  private static double perRequest(long before, long after, long requests) {
    return before < 0 || after < 0 || requests == 0 ? Double.NaN : (after - before) / 1000.0 / requests;
  }

  private static long redisPid(String uri) {
    int port = URI.create(uri).getPort();
    long pid = ProcStats.findPid("redis-server", ":" + port);
    return pid >= 0 ? pid : ProcStats.findPid("redis-server", "--port " + port);
  }

  /** Medians over passes per run kind, and each Playline read's ratio to its Redis-alone baseline. */
  private void report(List<Result> results) {
    Map<String, List<Result>> byKind = new LinkedHashMap<>();
    for (Result r : results) {
      byKind.computeIfAbsent(r.kind, k -> new ArrayList<>()).add(r);
    }
    System.out.printf(Locale.ROOT, "%n== Playline bench reads: %d users x %d items, batch %d, page %d, %d in flight, "
        + "%d pass(es), %d cores, %s ==%n", users, items, batch, page, concurrency, passes,
        Runtime.getRuntime().availableProcessors(), java.time.LocalDate.now());
    System.out.printf("%-20s %10s %9s %9s %9s %14s %14s %14s %7s %8s %9s%n", "run (median)", "req/s", "p50 ms",
        "p99 ms", "p99.9 ms", "server us/req", "redis us/req", "bench us/req", "errors", "hb/s", "hb p99 ms");
    Map<String, Double> rates = new LinkedHashMap<>();
    Map<String, Double> redisCpu = new LinkedHashMap<>();
    for (var e : byKind.entrySet()) {
      List<Result> rs = e.getValue();
      double rate = median(rs, Result::perSecond);
      rates.put(e.getKey(), rate);
      redisCpu.put(e.getKey(), median(rs, Result::redisCpu));
      System.out.printf(Locale.ROOT, "%-20s %10.0f %9.2f %9.2f %9.2f %14.1f %14.1f %14.1f %7d %8.0f %9.2f%n",
          e.getKey(), rate, median(rs, Result::p50), median(rs, Result::p99), median(rs, Result::p999),
          median(rs, Result::serverCpu), median(rs, Result::redisCpu), median(rs, Result::ownCpu),
          rs.stream().mapToLong(Result::errors).sum(), median(rs, Result::heartbeatsPerSecond),
          median(rs, Result::heartbeatP99));
    }
    for (String kind : kinds) {
      Double playline = rates.get("playline-" + kind);
      Double redis = rates.get("redis-" + kind);
      if (playline != null && redis != null) {
        System.out.printf(Locale.ROOT, "%s: Playline serves %.2fx of Redis alone's requests/s; Redis CPU per request "
            + "%.1fx of Redis alone's%n", kind, playline / redis, redisCpu.get("playline-" + kind)
            / redisCpu.get("redis-" + kind));
      }
    }
  }

  private static double median(List<Result> rs, java.util.function.ToDoubleFunction<Result> f) {
    double[] v = rs.stream().mapToDouble(f).sorted().toArray();
    return v.length == 0 ? Double.NaN : v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }
}
