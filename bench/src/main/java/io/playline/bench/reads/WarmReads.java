package io.playline.bench.reads;

import io.grpc.stub.StreamObserver;
import io.lettuce.core.KeyValue;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.playline.core.store.RedisKeys;
import io.playline.core.store.TimelineOrder;
import io.playline.proto.v1.BatchGetProgressRequest;
import io.playline.proto.v1.BatchGetProgressResponse;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.GetProgressRequest;
import io.playline.proto.v1.GetProgressResponse;
import io.playline.proto.v1.HistoryGrpc;
import io.playline.proto.v1.ItemKey;
import io.playline.proto.v1.ListHistoryRequest;
import io.playline.proto.v1.ListHistoryResponse;
import io.playline.proto.v1.PlayEvent;
import io.playline.proto.v1.ReportRequest;
import io.playline.time.Time;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The warm reads of {@code bench reads} ({@code progress}, {@code page}): seeding {@code users}
 * users from {@code base} with {@code items} items each through the API's {@code Report}, then one
 * read of a random user over the API or of Redis alone. The reads may be issued from any thread;
 * {@link #seed} from the control thread.
 *
 * @param batch items per {@code GetProgress}
 * @param page records per {@code ListHistory} page
 * @param callUsers users per {@code progress} call: 1 is a {@code GetProgress}, more a {@code
 *     BatchGetProgress} of that many users' {@code GetProgress} (and, for Redis alone, that many
 *     users' commands per request)
 */
record WarmReads(long base, int users, int items, int batch, int page, int callUsers) {
  private static final byte[] TOMB_CLEAR = "*".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] TOMB_VIDEO = ("b" + Business.VIDEO.getNumber()).getBytes(StandardCharsets.US_ASCII);

  /** Writes {@code items} items per user through the API's Report, 32 calls in flight. */
  void seed(List<HistoryGrpc.HistoryStub> stubs) throws InterruptedException {
    long start = Time.SYSTEM.nanoTime();
    Semaphore inFlight = new Semaphore(32);
    AtomicLong failed = new AtomicLong();
    long now = Time.SYSTEM.millis();
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
        TimeUnit.NANOSECONDS.toMillis(Time.SYSTEM.nanoTime() - start));
  }

  /** A random seeded user. */
  long randomUser() {
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

  /** One {@code kind} read ({@code progress} or {@code page}) of a random user over the API. */
  CompletionStage<?> api(String kind, HistoryGrpc.HistoryStub stub) {
    long uid = randomUser();
    if (kind.equals("progress")) {
      int expected = Math.min(batch, items);
      if (callUsers == 1) {
        UnaryAnswer<GetProgressResponse> a = new UnaryAnswer<>(resp -> resp.getRecordsCount() == expected);
        stub.getProgress(progressRequest(uid), a);
        return a.done;
      }
      BatchGetProgressRequest.Builder r = BatchGetProgressRequest.newBuilder().addRequests(progressRequest(uid));
      for (int u = 1; u < callUsers; u++) {
        r.addRequests(progressRequest(randomUser()));
      }
      UnaryAnswer<BatchGetProgressResponse> a = new UnaryAnswer<>(resp -> resp.getResponsesCount() == callUsers
          && resp.getResponsesList().stream().allMatch(one -> one.getRecordsCount() == expected));
      stub.batchGetProgress(r.build(), a);
      return a.done;
    }
    UnaryAnswer<ListHistoryResponse> a = new UnaryAnswer<>(resp -> resp.getRecordsCount() == Math.min(page, items));
    stub.listHistory(ListHistoryRequest.newBuilder().setUid(uid).setLimit(page).build(), a);
    return a.done;
  }

  private GetProgressRequest progressRequest(long uid) {
    GetProgressRequest.Builder r = GetProgressRequest.newBuilder().setUid(uid);
    for (int oid : randomOids()) {
      r.addItems(ItemKey.newBuilder().setBusiness(Business.VIDEO).setOid(oid));
    }
    return r.build();
  }

  /**
   * One user's progress lookup by Redis alone: HMGET of the fields of its records, and of its
   * tombstones the same fields the API asks (the user's clear {@code *}, the business's {@code b1},
   * then each item's).
   */
  private CompletableFuture<?> progressAlone(RedisClusterAsyncCommands<byte[], byte[]> redis, RedisKeys keys, long uid) {
    List<Integer> oids = randomOids();
    byte[][] fields = new byte[oids.size()][];
    byte[][] tombFields = new byte[oids.size() + 2][];
    tombFields[0] = TOMB_CLEAR;
    tombFields[1] = TOMB_VIDEO;
    for (int i = 0; i < fields.length; i++) {
      fields[i] = TimelineOrder.member(Business.VIDEO.getNumber(), oids.get(i)).getBytes(StandardCharsets.US_ASCII);
      tombFields[i + 2] = fields[i];
    }
    CompletableFuture<List<KeyValue<byte[], byte[]>>> records = redis.hmget(keys.records(uid), fields).toCompletableFuture();
    CompletableFuture<List<KeyValue<byte[], byte[]>>> tombs = redis.hmget(keys.tombstones(uid), tombFields)
        .toCompletableFuture();
    return records.thenCombine(tombs, (r, t) -> {
      if (r.stream().filter(KeyValue::hasValue).count() != fields.length) {
        throw new IllegalStateException("Redis alone found " + r.stream().filter(KeyValue::hasValue).count()
            + " of " + fields.length + " seeded records of user " + uid);
      }
      return r;
    });
  }

  /** The same read of Redis alone: the plain commands it needs. */
  CompletionStage<?> redis(String kind, RedisClusterAsyncCommands<byte[], byte[]> redis, RedisKeys keys) {
    long uid = randomUser();
    if (kind.equals("progress")) {
      CompletableFuture<?> all = progressAlone(redis, keys, uid);
      for (int u = 1; u < callUsers; u++) {
        all = all.thenCombine(progressAlone(redis, keys, randomUser()), (a, b) -> a);
      }
      return all;
    }
    byte[] timeline = keys.timeline(uid);
    return redis.zrevrangeWithScores(timeline, 0, page - 1).thenCompose(members -> {
      byte[][] fields = members.stream().map(ScoredValue::getValue).toArray(byte[][]::new);
      return fields.length == 0 ? CompletableFuture.completedFuture(List.<KeyValue<byte[], byte[]>>of())
          : redis.hmget(keys.records(uid), fields);
    });
  }
}
