package io.playline.job.recover;

import io.playline.core.store.RetriableStoreException;
import io.playline.job.metrics.JobMetrics;
import io.playline.job.redis.RedisShardLeases;
import io.playline.time.Time;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This job instance's share of the recovery shards: the shard leases it holds and the fair split
 * it aims at. Each {@link #rebalance} advertises the instance, renews its leases and computes its
 * share from the live instances: with their owner ids sorted, the one at rank {@code r} of {@code
 * n} aims at {@code shards / n} leases, plus one when {@code r < shards % n}, so the shares add up
 * to exactly the shards. It then releases its surplus (a new instance joined) or takes free leases
 * up to its share (an instance left, or its leases expired after the TTL because it died).
 *
 * <p>Why two instances never sweep one shard at once: a shard is swept a page at a time, and
 * {@link #hold} renews its lease (compare owner, then {@code PEXPIRE}) before every page, so each
 * page starts with the lease ours for a full TTL; a lease lost in between (expired while this
 * instance stalled, then taken) fails the renewal and the sweep of that shard stops there. This
 * holds while a page takes less than the TTL.
 *
 * <p>Confined to the sweeper's thread (its callers hold the sweeper's lock); {@link #owned()} may
 * be read from any thread.
 */
final class ShardLeases {
  private static final Logger log = LoggerFactory.getLogger(ShardLeases.class);

  private final String owner;
  private final int shards;
  private final long ttlMs;
  private final long renewAllEveryNanos;
  private final JobMetrics metrics;
  private final Time time;
  private final TreeSet<Integer> held = new TreeSet<>();
  private volatile Set<Integer> owned = Set.of();
  private List<String> live = List.of();
  private long renewedAllAt;

  /**
   * An owner id unique to this object: {@code instanceId} plus a random suffix; renewals are paced
   * by {@code time}.
   */
  ShardLeases(String instanceId, int shards, Duration ttl, JobMetrics metrics, Time time) {
    this.owner = instanceId + "-" + UUID.randomUUID().toString().substring(0, 8);
    this.shards = shards;
    this.ttlMs = ttl.toMillis();
    // Leases of shards a long sweep has not reached yet are renewed well before they lapse.
    this.renewAllEveryNanos = ttl.toNanos() / 3;
    this.metrics = metrics;
    this.time = time;
    this.renewedAllAt = time.nanoTime() - renewAllEveryNanos;
  }

  /** The id this instance's leases hold in Redis. */
  String owner() {
    return owner;
  }

  /** The shards this instance held a lease on at its last renewal, acquisition or release. Any thread. */
  Set<Integer> owned() {
    return owned;
  }

  /**
   * Advertises this instance, renews its leases, releases its surplus or takes free leases up to
   * its fair share; returns the shards it holds now, ascending.
   *
   * @throws RetriableStoreException when Redis failed; leases not renewed lapse after the TTL
   */
  List<Integer> rebalance(RedisShardLeases redis) {
    renewAll(redis);
    int share = fairShare(shards, live, owner);
    if (held.size() > share) {
      List<Integer> surplus = new ArrayList<>(held.descendingSet()).subList(0, held.size() - share);
      int released = redis.release(surplus, owner).size();
      surplus.forEach(held::remove);
      metrics.leasesReleased(released);
      metrics.leasesLost(surplus.size() - released);
      log.info("Released recovery shard leases {} to {} other instance(s); keeping {}", surplus, live.size() - 1,
          held);
    } else if (held.size() < share) {
      acquire(redis, share - held.size());
    }
    publish();
    return List.copyOf(held);
  }

  /**
   * Renews {@code shard}'s lease before a page of its sweep; false when this instance no longer
   * holds it (the sweep of that shard must stop).
   *
   * @throws RetriableStoreException when Redis failed
   */
  boolean hold(RedisShardLeases redis, int shard) {
    if (!held.contains(shard)) {
      return false;
    }
    if (time.nanoTime() - renewedAllAt >= renewAllEveryNanos) {
      renewAll(redis);
    } else {
      keep(List.of(shard), redis.renew(List.of(shard), owner, ttlMs));
    }
    publish();
    return held.contains(shard);
  }

  /** Releases every lease and leaves the live instances, so the others take over at once. */
  void releaseAll(RedisShardLeases redis) {
    List<Integer> all = List.copyOf(held);
    abandon();
    int released = redis.release(all, owner).size();
    metrics.leasesReleased(released);
    redis.leave(owner);
    log.info("Released {} recovery shard lease(s) at close", released);
  }

  /** Forgets every lease without telling Redis, as a crash would: they lapse after the TTL. */
  void abandon() {
    held.clear();
    live = List.of();
    publish();
  }

  private void renewAll(RedisShardLeases redis) {
    long start = time.nanoTime();
    live = redis.heartbeat(owner, ttlMs);
    keep(List.copyOf(held), redis.renew(held, owner, ttlMs));
    renewedAllAt = start;
  }

  /** Keeps of {@code asked} only the {@code renewed} shards; the others were lost. */
  private void keep(Collection<Integer> asked, Set<Integer> renewed) {
    metrics.leasesRenewed(renewed.size());
    List<Integer> lost = new ArrayList<>();
    for (int shard : asked) {
      if (!renewed.contains(shard) && held.remove(shard)) {
        lost.add(shard);
      }
    }
    if (!lost.isEmpty()) {
      metrics.leasesLost(lost.size());
      log.warn("Lost the recovery shard lease(s) {} (expired: this instance stalled longer than the TTL, or Redis "
          + "lost them); no longer sweeping them", lost);
    }
  }

  /** Takes up to {@code wanted} free leases, trying shards from a point of this owner's own. */
  private void acquire(RedisShardLeases redis, int wanted) {
    List<Integer> candidates = new ArrayList<>();
    int start = Math.floorMod(owner.hashCode(), shards);
    for (int i = 0; i < shards; i++) {
      int shard = (start + i) % shards;
      if (!held.contains(shard)) {
        candidates.add(shard);
      }
    }
    TreeSet<Integer> taken = new TreeSet<>();
    Iterator<Integer> next = candidates.iterator();
    while (taken.size() < wanted && next.hasNext()) {
      List<Integer> batch = new ArrayList<>();
      while (batch.size() < wanted - taken.size() && next.hasNext()) {
        batch.add(next.next());
      }
      Set<Integer> won = redis.acquire(batch, owner, ttlMs);
      // Held at once: should a later batch fail, these are still renewed and released, not left to lapse.
      held.addAll(won);
      taken.addAll(won);
    }
    if (!taken.isEmpty()) {
      metrics.leasesAcquired(taken.size());
      log.info("Acquired recovery shard leases {}; holding {} of {} ({} live instance(s))", taken, held.size(),
          shards, live.size());
    }
  }

  private void publish() {
    owned = Set.copyOf(held);
    metrics.leases(held.size(), live.size());
  }

  /**
   * How many of {@code shards} the instance {@code owner} should hold among {@code live} owners:
   * the shares of all live instances add up to {@code shards} and differ by at most one.
   */
  static int fairShare(int shards, List<String> live, String owner) {
    List<String> sorted = new ArrayList<>(live);
    if (!sorted.contains(owner)) {
      sorted.add(owner);
    }
    sorted.sort(null);
    int n = sorted.size();
    int rank = sorted.indexOf(owner);
    return shards / n + (rank < shards % n ? 1 : 0);
  }
}
