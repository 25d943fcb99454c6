package io.playline.bench.heartbeats.baseline;

import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.playline.core.config.ConfigSource;
import io.playline.core.config.CoreConfig;
import io.playline.core.store.RedisConnections;
import io.playline.core.store.RedisKeys;
import io.playline.core.write.FirstTodayCheck;
import io.playline.core.write.RedisHistoryWriter;
import io.playline.core.write.UserWrite;
import io.playline.core.write.WriteBackSink;
import io.playline.core.write.WriteBatch;
import io.playline.core.write.WriteMetrics;
import io.playline.node.push.PushKeys;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.HistoryRecord;
import io.playline.time.Time;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The storage ceiling: Redis alone absorbing the commands Playline sends it per heartbeat,
 * pipelined in batches of the same size, with nothing else in the way. Each batch of {@code
 * batchSize} heartbeats (one user each) goes through Playline's own {@link RedisHistoryWriter} —
 * the same {@code write_history} calls, recovery-log entries and {@code first_today} checks (for the
 * given fraction of heartbeats) the gateway sends — plus {@code HGETALL}s of the users' push
 * registries (the push router's lookups) for the given fraction, flushed with the batch; at most
 * {@code maxInFlight} batches await Redis (the batcher's {@code heartbeat.max.inflight}). Playline's
 * Redis settings come from the environment as the gateways' do; keys live under a fresh prefix
 * and expire (or are deleted) afterwards.
 *
 * <p>Driven from the calling thread; completions run on the Redis client's thread.
 */
public final class RedisMixLoad {
  private static final Duration KEY_TTL = Duration.ofMinutes(10);

  /**
   * The shape of the mix.
   *
   * @param batchSize heartbeats per pipelined round trip
   * @param eventsPerHeartbeat records per heartbeat
   * @param firstTodayFraction first-today checks per heartbeat (0..1)
   * @param lookupFraction push-registry lookups ({@code HGETALL} of the user's node hash, which holds
   *     one node as on a single gateway) per heartbeat (0..1)
   * @param users distinct users cycled through, from {@code uidBase}
   * @param uidBase first user id
   * @param maxInFlight batches awaiting Redis at once
   */
  public record Mix(int batchSize, int eventsPerHeartbeat, double firstTodayFraction, double lookupFraction, int users,
      long uidBase, int maxInFlight) {
    public Mix {
      if (batchSize < 1 || users < 1 || maxInFlight < 1 || firstTodayFraction < 0 || firstTodayFraction > 1
          || lookupFraction < 0 || lookupFraction > 1) {
        throw new IllegalArgumentException("mix: " + this);
      }
    }
  }

  /** Heartbeats Redis absorbed in the measured window and how long it was. */
  public record Result(long heartbeats, long roundTrips, long nanos) {
    public double perSecond() {
      return nanos == 0 ? 0 : heartbeats * 1e9 / nanos;
    }
  }

  private RedisMixLoad() {}

  /**
   * Runs the mix against {@code redisUri} for {@code warmup}, then measures for {@code measure};
   * {@code windowStart} and {@code windowEnd} run on the calling thread at the window's edges.
   * {@code settings} override Playline settings (e.g. {@code redis.write.users.per.script}) over the
   * environment's.
   */
  public static Result run(String redisUri, Map<String, String> settings, Mix mix, Duration warmup, Duration measure,
      Runnable windowStart, Runnable windowEnd) throws InterruptedException {
    String prefix = "plbench" + Long.toString(Time.SYSTEM.nanoTime(), 36) + ":";
    Map<String, String> own = new HashMap<>(settings);
    own.put("redis.key.prefix", prefix);
    own.put("history.redis.ttl", KEY_TTL.toMinutes() + "m");
    CoreConfig core = CoreConfig.from(ConfigSource.load(null, own));
    try (RedisConnections redis = RedisConnections.connect(redisUri, false, Duration.ofSeconds(10));
        RedisHistoryWriter writer = new RedisHistoryWriter(core, redis, WriteBackSink.NONE,
            new WriteMetrics(new SimpleMeterRegistry(), Time.SYSTEM))) {
      RedisKeys keys = new RedisKeys(prefix);
      PushKeys pushKeys = new PushKeys(prefix);
      if (mix.lookupFraction() > 0) {
        seedRegistry(redis.shared(), pushKeys, mix);
      }
      Driver driver = new Driver(writer, redis.newPipeline(), pushKeys, mix);
      driver.runFor(warmup);
      long h0 = driver.heartbeats.get();
      long r0 = driver.roundTrips.get();
      windowStart.run();
      long t0 = Time.SYSTEM.nanoTime();
      driver.runFor(measure);
      long nanos = Time.SYSTEM.nanoTime() - t0;
      windowEnd.run();
      Result result = new Result(driver.heartbeats.get() - h0, driver.roundTrips.get() - r0, nanos);
      driver.drain();
      for (int s = 0; s < core.recoveryShards(); s++) {
        redis.shared().del(keys.recovery(s), keys.recoveryClock(s), keys.recoveryLog(s)).get(10, TimeUnit.SECONDS);
      }
      return result;
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("Redis mix failed: " + e.getMessage(), e);
    }
  }

  /** Gives every user a push-registry entry of one node, as a single gateway holding them has. */
  private static void seedRegistry(RedisClusterAsyncCommands<byte[], byte[]> redis, PushKeys pushKeys, Mix mix)
      throws InterruptedException, ExecutionException, TimeoutException {
    byte[] node = "bench-node".getBytes(StandardCharsets.UTF_8);
    byte[] expires = Long.toString(Time.SYSTEM.millis() + KEY_TTL.toMillis()).getBytes(StandardCharsets.US_ASCII);
    List<CompletableFuture<?>> seeded = new ArrayList<>(2 * mix.users());
    for (int u = 0; u < mix.users(); u++) {
      byte[] key = pushKeys.nodes(mix.uidBase() + u);
      seeded.add(redis.hset(key, node, expires).toCompletableFuture());
      seeded.add(redis.pexpire(key, KEY_TTL.toMillis()).toCompletableFuture());
    }
    CompletableFuture.allOf(seeded.toArray(new CompletableFuture<?>[0])).get(30, TimeUnit.SECONDS);
  }

  /** Builds and sends batches; confined to the calling thread except the counters. */
  private static final class Driver {
    private final RedisHistoryWriter writer;
    private final StatefulConnection<byte[], byte[]> lookups;
    private final RedisClusterAsyncCommands<byte[], byte[]> lookupCommands;
    private final PushKeys pushKeys;
    private final Mix mix;
    private final Semaphore inFlight;
    private final AtomicLong heartbeats = new AtomicLong();
    private final AtomicLong roundTrips = new AtomicLong();
    private final String day = LocalDate.ofInstant(Time.SYSTEM.instant(), ZoneOffset.UTC).toString().replace("-", "");
    private long next;
    private double firstTodayCredit;
    private double lookupCredit;

    Driver(RedisHistoryWriter writer, StatefulConnection<byte[], byte[]> lookups, PushKeys pushKeys, Mix mix) {
      this.writer = writer;
      this.lookups = lookups;
      this.lookupCommands = RedisConnections.commands(lookups);
      this.pushKeys = pushKeys;
      this.mix = mix;
      this.inFlight = new Semaphore(mix.maxInFlight());
    }

    void runFor(Duration d) throws InterruptedException {
      long end = Time.SYSTEM.nanoTime() + d.toNanos();
      while (Time.SYSTEM.nanoTime() < end) {
        if (inFlight.tryAcquire(100, TimeUnit.MILLISECONDS)) {
          sendBatch();
        }
      }
    }

    void drain() throws InterruptedException {
      if (inFlight.tryAcquire(mix.maxInFlight(), 30, TimeUnit.SECONDS)) {
        inFlight.release(mix.maxInFlight());
      }
    }

    private void sendBatch() {
      long nowMs = Time.SYSTEM.millis();
      List<UserWrite> writes = new ArrayList<>(mix.batchSize());
      List<FirstTodayCheck> firstToday = new ArrayList<>();
      List<CompletableFuture<?>> all = new ArrayList<>();
      for (int h = 0; h < mix.batchSize(); h++) {
        long uid = mix.uidBase() + (next++ % mix.users());
        List<HistoryRecord> records = new ArrayList<>(mix.eventsPerHeartbeat());
        for (int e = 0; e < mix.eventsPerHeartbeat(); e++) {
          long oid = 1 + (uid * 7 + e) % 1_000_000;
          records.add(HistoryRecord.newBuilder().setUid(uid).setBusiness(Business.VIDEO).setOid(oid)
              .setProgressMs(nowMs % 2_700_000).setDurationMs(2_700_000).setViewTimeMs(nowMs)
              .setDeviceId("bench-" + (uid - mix.uidBase())).setPlatform("bench").build());
        }
        writes.add(new UserWrite(uid, records));
        firstTodayCredit += mix.firstTodayFraction();
        if (firstTodayCredit >= 1) {
          firstTodayCredit -= 1;
          firstToday.add(FirstTodayCheck.of(uid));
        }
        lookupCredit += mix.lookupFraction();
        if (lookupCredit >= 1) {
          lookupCredit -= 1;
          all.add(lookupCommands.hgetall(pushKeys.nodes(uid)).toCompletableFuture());
        }
      }
      lookups.flushCommands();
      all.add(writer.write(new WriteBatch(nowMs, day, KEY_TTL.toMillis(), writes, firstToday)).toCompletableFuture());
      CompletableFuture.allOf(all.toArray(new CompletableFuture<?>[0])).whenComplete((v, error) -> {
        if (error == null) {
          heartbeats.addAndGet(mix.batchSize());
          roundTrips.incrementAndGet();
        }
        inFlight.release();
      });
    }
  }
}
