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
 * redis-server and of this process, and the ratio to Redis alone. Control thread only.
 */
@Command(name = "reads", mixinStandardHelpOptions = true,
    description = {"Reads over the internal History API (GetProgress, ListHistory first page) against Redis alone",
        "running the plain commands of each read, alternating pass by pass. Needs a running standalone."})
final class ReadsCommand implements Callable<Integer> {
  @Option(names = "--endpoints", paramLabel = "FILE",
      description = "The standalone's endpoints.json (default: $PLAYLINE_DATA_DIR/endpoints.json, else ./data/endpoints.json).")
  @Nullable Path endpoints;

  @Option(names = "--kind", split = ",", defaultValue = "progress,page", description = "progress,page (default: ${DEFAULT-VALUE}).")
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

  @Option(names = "--uid-base", description = "First user id (default: a random block, so runs use fresh users).")
  @Nullable Long uidBase;

  private record Result(String kind, int pass, double perSecond, double p50, double p99, double p999,
      double serverCpu, double redisCpu, double ownCpu, long errors) {}

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
      RedisKeys keys = new RedisKeys(keyPrefix);
      for (int pass = 1; pass <= passes; pass++) {
        for (String kind : kinds) {
          results.add(run("playline-" + kind, pass, warm, window, serverPid, redisPid,
              () -> apiRead(kind, stubs, base)));
          if (baselines.equals("redis")) {
            results.add(run("redis-" + kind, pass, warm, window, -1, redisPid,
                () -> redisRead(kind, redis.shared(), keys, base)));
          }
        }
      }
    } finally {
      for (ManagedChannel ch : open) {
        ch.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    }
    report(results);
    return 0;
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
          CompletionStage<?> stage;
          try {
            stage = read.get();
          } catch (RuntimeException e) {
            stage = CompletableFuture.failedFuture(e);
          }
          stage.whenComplete((v, error) -> {
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
    long startNanos = System.nanoTime();
    measuring.set(true);
    Thread.sleep(window.toMillis());
    measuring.set(false);
    long elapsed = System.nanoTime() - startNanos;
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
        errors.get());
    System.out.printf(Locale.ROOT, "  %-17s p%d %9.0f req/s  p50 %.2f ms  p99 %.2f ms  errors %d%s%n", kind, pass,
        r.perSecond, r.p50, r.p99, r.errors, sample.isEmpty() ? "" : " (first: " + sample.get(0) + ")");
    return r;
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
    System.out.printf("%-18s %10s %9s %9s %9s %14s %14s %14s %7s%n", "run (median)", "req/s", "p50 ms", "p99 ms",
        "p99.9 ms", "server us/req", "redis us/req", "bench us/req", "errors");
    Map<String, Double> rates = new LinkedHashMap<>();
    Map<String, Double> redisCpu = new LinkedHashMap<>();
    for (var e : byKind.entrySet()) {
      List<Result> rs = e.getValue();
      double rate = median(rs, Result::perSecond);
      rates.put(e.getKey(), rate);
      redisCpu.put(e.getKey(), median(rs, Result::redisCpu));
      System.out.printf(Locale.ROOT, "%-18s %10.0f %9.2f %9.2f %9.2f %14.1f %14.1f %14.1f %7d%n", e.getKey(), rate,
          median(rs, Result::p50), median(rs, Result::p99), median(rs, Result::p999), median(rs, Result::serverCpu),
          median(rs, Result::redisCpu), median(rs, Result::ownCpu), rs.stream().mapToLong(Result::errors).sum());
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
