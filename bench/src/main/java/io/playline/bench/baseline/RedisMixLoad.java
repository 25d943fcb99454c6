package io.playline.bench.baseline;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.playline.core.store.RedisKeys;
import io.playline.core.store.RedisScript;
import io.playline.gateway.push.PushKeys;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.HistoryRecord;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The storage ceiling: Redis alone absorbing the commands Playline sends it per heartbeat,
 * pipelined in batches of the same size, with nothing else in the way. Per batch of {@code
 * batchSize} heartbeats (one user each) it queues one {@code EVALSHA write_history} per {@code
 * usersPerScript} heartbeats (the real script from history-core, same keys, arguments and record
 * bytes as {@code RedisHistoryWriter}), one {@code ZADD} of recovery marks per touched shard,
 * {@code EVALSHA first_today} and {@code HGETALL} of the user's push registry (the push router's
 * lookups) for the given fractions of heartbeats, then flushes once; at most {@code maxInFlight}
 * batches await Redis (the batcher's {@code heartbeat.max.inflight}). Keys live under a fresh
 * prefix and expire (or are deleted) afterwards.
 *
 * <p>Driven from the calling thread; completions run on Lettuce's threads.
 */
public final class RedisMixLoad {
  private static final Duration KEY_TTL = Duration.ofMinutes(10);

  /**
   * The shape of the mix.
   *
   * @param batchSize heartbeats per pipelined round trip
   * @param eventsPerHeartbeat records per write_history call
   * @param firstTodayFraction first_today calls per heartbeat (0..1)
   * @param lookupFraction push-registry lookups ({@code HGETALL} of the user's node hash, which holds
   *     one node as on a single gateway) per heartbeat (0..1)
   * @param users distinct users cycled through, from {@code uidBase}
   * @param uidBase first user id
   * @param recoveryShards recovery-mark keys (Playline's {@code recovery.shards})
   * @param firstTodayShards first-today bitmap keys (Playline's {@code first.today.shards})
   * @param usersPerScript users per write_history call (Playline's {@code redis.write.users.per.script})
   * @param maxInFlight batches awaiting Redis at once
   */
  public record Mix(int batchSize, int eventsPerHeartbeat, double firstTodayFraction, double lookupFraction, int users,
      long uidBase, int recoveryShards, int firstTodayShards, int usersPerScript, int maxInFlight) {
    public Mix {
      if (batchSize < 1 || users < 1 || usersPerScript < 1 || maxInFlight < 1 || firstTodayFraction < 0
          || firstTodayFraction > 1 || lookupFraction < 0 || lookupFraction > 1) {
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
   */
  public static Result run(String redisUri, Mix mix, Duration warmup, Duration measure, Runnable windowStart,
      Runnable windowEnd) throws InterruptedException {
    ClientResources resources = DefaultClientResources.builder().ioThreadPoolSize(2).computationThreadPoolSize(2).build();
    RedisURI uri = RedisURI.create(redisUri);
    uri.setTimeout(Duration.ofSeconds(10));
    RedisClient client = RedisClient.create(resources, uri);
    String prefix = "plbench" + Long.toString(System.nanoTime(), 36) + ":";
    RedisKeys keys = new RedisKeys(prefix);
    try (StatefulRedisConnection<byte[], byte[]> conn = client.connect(ByteArrayCodec.INSTANCE)) {
      RedisAsyncCommands<byte[], byte[]> redis = conn.async();
      for (RedisScript s : List.of(RedisScript.WRITE_HISTORY, RedisScript.FIRST_TODAY)) {
        redis.scriptLoad(s.body().getBytes(StandardCharsets.UTF_8)).get(10, TimeUnit.SECONDS);
      }
      conn.setAutoFlushCommands(false);
      PushKeys pushKeys = new PushKeys(prefix);
      if (mix.lookupFraction() > 0) {
        seedRegistry(redis, conn, pushKeys, mix);
      }
      Driver driver = new Driver(redis, conn, keys, pushKeys, mix);
      driver.runFor(warmup);
      long h0 = driver.heartbeats.get();
      long r0 = driver.roundTrips.get();
      windowStart.run();
      long t0 = System.nanoTime();
      driver.runFor(measure);
      long nanos = System.nanoTime() - t0;
      windowEnd.run();
      Result result = new Result(driver.heartbeats.get() - h0, driver.roundTrips.get() - r0, nanos);
      driver.drain();
      conn.setAutoFlushCommands(true);
      for (int s = 0; s < mix.recoveryShards(); s++) {
        redis.del(keys.recovery(s)).get(10, TimeUnit.SECONDS);
      }
      return result;
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("Redis mix failed: " + e.getMessage(), e);
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      resources.shutdown(0, 2, TimeUnit.SECONDS);
    }
  }

  /** Gives every user a push-registry entry of one node, as a single gateway holding them has. */
  private static void seedRegistry(RedisAsyncCommands<byte[], byte[]> redis, StatefulRedisConnection<byte[], byte[]> conn,
      PushKeys pushKeys, Mix mix) throws InterruptedException, java.util.concurrent.ExecutionException,
      java.util.concurrent.TimeoutException {
    byte[] node = "bench-node".getBytes(StandardCharsets.UTF_8);
    byte[] expires = num(System.currentTimeMillis() + KEY_TTL.toMillis());
    List<CompletableFuture<?>> seeded = new ArrayList<>(2 * mix.users());
    for (int u = 0; u < mix.users(); u++) {
      byte[] key = pushKeys.nodes(mix.uidBase() + u);
      seeded.add(redis.hset(key, node, expires).toCompletableFuture());
      seeded.add(redis.pexpire(key, KEY_TTL.toMillis()).toCompletableFuture());
    }
    conn.flushCommands();
    CompletableFuture.allOf(seeded.toArray(new CompletableFuture<?>[0])).get(30, TimeUnit.SECONDS);
  }

  /** Builds and sends batches; confined to the calling thread except the counters. */
  private static final class Driver {
    private final RedisAsyncCommands<byte[], byte[]> redis;
    private final StatefulRedisConnection<byte[], byte[]> conn;
    private final RedisKeys keys;
    private final Mix mix;
    private final Semaphore inFlight;
    private final AtomicLong heartbeats = new AtomicLong();
    private final AtomicLong roundTrips = new AtomicLong();
    private final byte[] maxItems = num(1000);
    private final byte[] ttl = num(KEY_TTL.toMillis());
    private final String day = LocalDate.now(ZoneOffset.UTC).toString().replace("-", "");
    private long next;
    private double firstTodayCredit;
    private double lookupCredit;
    private final PushKeys pushKeys;

    Driver(RedisAsyncCommands<byte[], byte[]> redis, StatefulRedisConnection<byte[], byte[]> conn, RedisKeys keys,
        PushKeys pushKeys, Mix mix) {
      this.pushKeys = pushKeys;
      this.redis = redis;
      this.conn = conn;
      this.keys = keys;
      this.mix = mix;
      this.inFlight = new Semaphore(mix.maxInFlight());
    }

    void runFor(Duration d) throws InterruptedException {
      long end = System.nanoTime() + d.toNanos();
      while (System.nanoTime() < end) {
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
      long nowMs = System.currentTimeMillis();
      List<CompletableFuture<?>> all = new ArrayList<>(mix.batchSize() + mix.recoveryShards());
      Map<Integer, List<Object>> marks = new HashMap<>();
      for (int from = 0; from < mix.batchSize(); from += mix.usersPerScript()) {
        int users = Math.min(mix.usersPerScript(), mix.batchSize() - from);
        byte[][] userKeys = new byte[4 * users][];
        byte[][] args = new byte[2 + users * (1 + 3 * mix.eventsPerHeartbeat())][];
        args[0] = maxItems;
        args[1] = ttl;
        int k = 0;
        int a = 2;
        for (int h = 0; h < users; h++) {
          long uid = mix.uidBase() + (next++ % mix.users());
          userKeys[k++] = keys.timeline(uid);
          userKeys[k++] = keys.records(uid);
          userKeys[k++] = keys.tombstones(uid);
          userKeys[k++] = keys.paused(uid);
          args[a++] = num(mix.eventsPerHeartbeat());
          List<Object> shardMarks = marks.computeIfAbsent(RedisKeys.recoveryShard(uid, mix.recoveryShards()),
              s -> new ArrayList<>());
          for (int e = 0; e < mix.eventsPerHeartbeat(); e++) {
            long oid = 1 + (uid * 7 + e) % 1_000_000;
            byte[] member = RedisKeys.member(Business.VIDEO, oid);
            args[a++] = member;
            args[a++] = num(nowMs);
            args[a++] = HistoryRecord.newBuilder().setUid(uid).setBusiness(Business.VIDEO).setOid(oid)
                .setProgressMs(nowMs % 2_700_000).setDurationMs(2_700_000).setViewTimeMs(nowMs)
                .setDeviceId("bench-" + (uid - mix.uidBase())).setPlatform("bench").build().toByteArray();
            shardMarks.add((double) nowMs);
            shardMarks.add(RedisKeys.recoveryMember(uid, member));
          }
          firstTodayCredit += mix.firstTodayFraction();
          if (firstTodayCredit >= 1) {
            firstTodayCredit -= 1;
            all.add(evalsha(RedisScript.FIRST_TODAY, ScriptOutputType.INTEGER,
                new byte[][] {keys.firstToday(day, uid, mix.firstTodayShards())},
                num(RedisKeys.firstTodayBit(uid, mix.firstTodayShards())), num(KEY_TTL.toMillis())));
          }
          lookupCredit += mix.lookupFraction();
          if (lookupCredit >= 1) {
            lookupCredit -= 1;
            all.add(redis.hgetall(pushKeys.nodes(uid)).toCompletableFuture());
          }
        }
        all.add(evalsha(RedisScript.WRITE_HISTORY, ScriptOutputType.MULTI, userKeys, args));
      }
      for (Map.Entry<Integer, List<Object>> e : marks.entrySet()) {
        all.add(redis.zadd(keys.recovery(e.getKey()), e.getValue().toArray()).toCompletableFuture());
      }
      conn.flushCommands();
      CompletableFuture.allOf(all.toArray(new CompletableFuture<?>[0])).whenComplete((v, error) -> {
        if (error == null) {
          heartbeats.addAndGet(mix.batchSize());
          roundTrips.incrementAndGet();
        }
        inFlight.release();
      });
    }

    private CompletableFuture<Object> evalsha(RedisScript script, ScriptOutputType type, byte[][] k, byte[]... args) {
      RedisFuture<Object> f = redis.evalsha(script.sha(), type, k, args);
      return f.toCompletableFuture();
    }
  }

  private static byte[] num(long n) {
    return Long.toString(n).getBytes(StandardCharsets.US_ASCII);
  }
}
