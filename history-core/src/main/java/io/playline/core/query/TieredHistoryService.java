package io.playline.core.query;

import io.micrometer.core.instrument.MeterRegistry;
import io.playline.core.aggregate.WriteBackAggregator;
import io.playline.core.config.CoreConfig;
import io.playline.core.stats.ItemStatsLayout;
import io.playline.core.stats.ItemStatsReader;
import io.playline.core.store.HBaseClient;
import io.playline.core.store.RedisConnections;
import io.playline.core.store.RetriableStoreException;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.Cursor;
import io.playline.proto.v1.GetProgressRequest;
import io.playline.proto.v1.HistoryPage;
import io.playline.proto.v1.HistoryRecord;
import io.playline.proto.v1.ItemKey;
import io.playline.proto.v1.ItemStats;
import io.playline.time.Time;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link HistoryService} over both tiers: Redis (the newest {@code history.redis.max.items}
 * per user, written through by heartbeats) and HBase (the whole retained history, written by the
 * job). Reads: {@link ProgressReader} and {@link TimelinePager} over {@link RedisTimeline} and
 * {@link HBaseTimeline}; controls: {@link HistoryControl}. Every request is validated here first
 * ({@link RequestValidator}), then counted and timed, and its failure sorted ({@link StoreFailures}).
 *
 * <p>Thread-safe; never blocks the caller: Redis calls go through the shared Lettuce connection,
 * HBase calls through the {@link HBaseClient}, which the first read that needs HBase opens (off the
 * caller's thread); stages complete on their I/O threads. It borrows every client it is given and
 * owns nothing to close.
 */
public final class TieredHistoryService implements HistoryService {
  private static final Logger log = LoggerFactory.getLogger(TieredHistoryService.class);

  private final RequestValidator validator;
  private final ProgressReader progress;
  private final TimelinePager pager;
  private final HistoryControl control;
  private final ItemStatsReader stats;
  private final QueryMetrics metrics;
  private final Time time;

  /**
   * Deletes and clears go to {@code sink}; the server time (epoch ms) is {@code time}'s wall clock,
   * and each request is timed by it.
   */
  public TieredHistoryService(CoreConfig config, RedisConnections redis, HBaseClient hbase, TombstoneSink sink,
      MeterRegistry registry, Time time) {
    this.time = time;
    LongSupplier clock = time::millis;
    this.validator = new RequestValidator(config.query());
    this.metrics = new QueryMetrics(registry);
    RedisTimeline redisTier = new RedisTimeline(config, redis, metrics);
    HBaseTimeline hbaseTier = new HBaseTimeline(config.hbase(), config.query(), hbase, metrics, clock);
    this.progress = new ProgressReader(config, redisTier, hbaseTier, metrics, clock);
    this.pager = new TimelinePager(config, redisTier, hbaseTier, metrics, clock);
    this.control = new HistoryControl(config, redis, sink, metrics, clock);
    this.stats = new ItemStatsReader(redis.shared(), hbase, ItemStatsLayout.of(config.hbase()), config.redisKeyPrefix(),
        config.query().itemStatsCacheTtl(), config.query().hbaseTimeout(), registry);
  }

  @Override
  public CompletionStage<List<HistoryRecord>> progress(long uid, List<ItemKey> items) {
    return call("progress", () -> {
      validator.uid(uid);
      List<ItemKey> distinct = validator.items(items);
      return lookup("progress", uid, distinct);
    });
  }

  /**
   * Every request is validated first, then each user's lookup is issued at once: on one Redis
   * connection the commands of the whole batch leave in the same writes (the client's flushes are
   * coalesced per loop turn), which is what a batch saves over separate calls, besides the calls'
   * own transport work. All or nothing: one lookup failing fails the batch (every lookup is waited
   * for first), which is safe to retry. Timed as one {@code progress_batch}; each user's lookup
   * counts in {@code playline.query.tier{kind="progress_batch"}}.
   */
  @Override
  public CompletionStage<List<List<HistoryRecord>>> progress(List<GetProgressRequest> requests) {
    return call("progress_batch", () -> {
      List<List<ItemKey>> items = validator.progressBatch(requests);
      List<CompletableFuture<List<HistoryRecord>>> answers = new ArrayList<>(items.size());
      for (int i = 0; i < items.size(); i++) {
        answers.add(lookup("progress_batch", requests.get(i).getUid(), items.get(i)));
      }
      return CompletableFuture.allOf(answers.toArray(CompletableFuture<?>[]::new)).thenApply(v -> {
        List<List<HistoryRecord>> records = new ArrayList<>(answers.size());
        for (CompletableFuture<List<HistoryRecord>> a : answers) {
          records.add(a.join());
        }
        return records;
      });
    });
  }

  /**
   * One user's lookup of {@code distinct} (validated) items, none read for none; a throw becomes its
   * failed stage (in a batch, the other lookups are issued already).
   */
  private CompletableFuture<List<HistoryRecord>> lookup(String kind, long uid, List<ItemKey> distinct) {
    if (distinct.isEmpty()) {
      return CompletableFuture.completedFuture(List.of());
    }
    try {
      return progress.progress(kind, uid, distinct).toCompletableFuture();
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  @Override
  public CompletionStage<HistoryPage> list(long uid, List<Business> businesses, @Nullable Cursor after, int limit) {
    return call("list", () -> {
      validator.uid(uid);
      List<Business> filter = validator.businesses(businesses);
      TimelinePosition position = validator.cursor(after);
      return pager.page(uid, filter, position, validator.limit(limit));
    });
  }

  @Override
  public CompletionStage<Void> delete(long uid, List<ItemKey> items) {
    return call("delete", () -> {
      validator.uid(uid);
      List<ItemKey> distinct = validator.items(items);
      return distinct.isEmpty() ? CompletableFuture.completedFuture(null) : control.delete(uid, distinct);
    });
  }

  @Override
  public CompletionStage<Void> clear(long uid, List<Business> businesses, boolean allBusinesses) {
    return call("clear", () -> {
      validator.uid(uid);
      return control.clear(uid, validator.clearScope(businesses, allBusinesses));
    });
  }

  @Override
  public CompletionStage<Boolean> setPaused(long uid, boolean paused) {
    return call("set_paused", () -> {
      validator.uid(uid);
      return control.setPaused(uid, paused);
    });
  }

  @Override
  public CompletionStage<Boolean> paused(long uid) {
    return call("paused", () -> {
      validator.uid(uid);
      return control.paused(uid);
    });
  }

  @Override
  public CompletionStage<List<ItemStats>> itemStats(List<ItemKey> items) {
    return call("item_stats", () -> stats.read(validator.items(items)));
  }

  /** Runs {@code body}, turning a synchronous throw into a failed stage; counts, times and sorts the outcome. */
  private <T> CompletionStage<T> call(String kind, Supplier<CompletionStage<T>> body) {
    long start = time.nanoTime();
    CompletionStage<T> stage;
    try {
      stage = body.get();
    } catch (RuntimeException e) {
      stage = CompletableFuture.failedFuture(e);
    }
    CompletableFuture<T> result = new CompletableFuture<>();
    stage.whenComplete((value, error) -> {
      if (error == null) {
        metrics.finished(kind, "ok", time.nanoTime() - start);
        result.complete(value);
        return;
      }
      Throwable mapped = StoreFailures.map(kind, error);
      metrics.finished(kind, outcome(mapped), time.nanoTime() - start);
      if (mapped instanceof RetriableStoreException) {
        log.debug("History {} failed, retriable: {}", kind, mapped.toString());
      } else if (!(mapped instanceof InvalidRequestException) && !(mapped instanceof RateLimitedException)) {
        log.warn("History {} failed", kind, mapped);
      }
      result.completeExceptionally(mapped);
    });
    return result;
  }

  private static String outcome(Throwable mapped) {
    if (mapped instanceof InvalidRequestException) {
      return "invalid";
    }
    if (mapped instanceof RateLimitedException) {
      return "rate_limited";
    }
    return mapped instanceof RetriableStoreException ? "unavailable" : "error";
  }
}
