package io.playline.topology;

import io.playline.gateway.session.JwtTokens;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.ServerFrame;
import io.playline.testing.Frames;
import io.playline.testing.WsPlayerClient;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Players under a steady load, as a load balancer in front of the gateways would move them: each
 * player thread holds one WebSocket to a gateway, sends a heartbeat every {@code period} with its
 * item's progress one step further (event time = now), and records what was acked. Every {@link
 * #HEARTBEATS_PER_ITEM} heartbeats it moves on to a new item, so most items are never written again
 * after their last ack: if a fault loses that write, nothing later hides the loss. Every {@link
 * #DELETE_EVERY}th item is deleted once the player moved on from it, so a lost delete shows as an
 * item back in HBase. When its connection breaks (a node was killed) it reconnects to the next
 * gateway that answers. Progress of an item only grows, so what HBase ends up with must be at
 * least the largest acked progress of every item not deleted, and nothing of an item whose delete
 * was acked.
 */
final class SteadyLoad {
  /** One player's item. */
  record Item(long uid, long oid) {}

  static final int HEARTBEATS_PER_ITEM = 8;
  static final int DELETE_EVERY = 3;

  private final Supplier<List<Integer>> gatewayPorts;
  private final String secret;
  private final Duration period;
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final Map<Item, Long> acked = new ConcurrentHashMap<>();
  private final Set<Item> deleted = ConcurrentHashMap.newKeySet();
  // Items whose delete got no answer: it may or may not have been applied, so neither check holds.
  private final Set<Item> uncertain = ConcurrentHashMap.newKeySet();
  private final AtomicLong acks = new AtomicLong();
  private final AtomicLong deletes = new AtomicLong();
  private final AtomicLong reconnects = new AtomicLong();
  private final AtomicLong unanswered = new AtomicLong();
  private final List<Thread> threads = new ArrayList<>();

  SteadyLoad(Supplier<List<Integer>> gatewayPorts, String secret, Duration period) {
    this.gatewayPorts = gatewayPorts;
    this.secret = secret;
    this.period = period;
  }

  /** Starts {@code players} players with uids from {@code firstUid}, player i first on gateway i mod n. */
  SteadyLoad start(long firstUid, int players) {
    for (int i = 0; i < players; i++) {
      long uid = firstUid + i;
      int home = i;
      Thread t = new Thread(() -> play(uid, home), "load-player-" + uid);
      t.setDaemon(true);
      threads.add(t);
      t.start();
    }
    return this;
  }

  private void play(long uid, int home) {
    long progress = 0;
    long sent = 0;
    int attempt = home;
    WsPlayerClient conn = null;
    long seq = 1;
    while (running.get()) {
      try {
        if (conn == null) {
          List<Integer> ports = gatewayPorts.get();
          conn = connect(ports.get(attempt++ % ports.size()), uid);
          if (conn == null) {
            reconnects.incrementAndGet();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
            continue;
          }
        }
        Item item = new Item(uid, 1000 + sent / HEARTBEATS_PER_ITEM);
        Item previous = new Item(uid, item.oid() - 1);
        if (sent % HEARTBEATS_PER_ITEM == 0 && sent > 0 && previous.oid() % DELETE_EVERY == 0
            && !deleted.contains(previous) && !uncertain.contains(previous)) {
          delete(conn, ++seq, previous);
          if (conn.closed.isDone()) {
            conn = null;
            reconnects.incrementAndGet();
            continue;
          }
        }
        sent++;
        progress += 1_000;
        long s = ++seq;
        conn.send(Frames.heartbeat(s, Frames.event(Business.VIDEO, item.oid(), progress, 3_600_000,
            System.currentTimeMillis())));
        if (awaitAck(conn, s)) {
          acked.merge(item, progress, Math::max);
          acks.incrementAndGet();
        } else {
          unanswered.incrementAndGet();
        }
        if (conn.closed.isDone()) {
          conn = null;
          reconnects.incrementAndGet();
        }
      } catch (RuntimeException e) {
        // The node went away mid-send: move on to another one.
        if (conn != null) {
          conn.close();
        }
        conn = null;
        reconnects.incrementAndGet();
      } catch (InterruptedException e) {
        return;
      }
      LockSupport.parkNanos(period.toNanos());
    }
    if (conn != null) {
      conn.close();
    }
  }

  /** Deletes {@code item}; an acked delete moves it from the acked items to the deleted ones. */
  private void delete(WsPlayerClient conn, long s, Item item) throws InterruptedException {
    conn.send(Frames.delete(s, Frames.video(item.oid())));
    ServerFrame answer = awaitAnswer(conn, s);
    if (answer != null && answer.hasDone()) {
      deleted.add(item);
      acked.remove(item);
      deletes.incrementAndGet();
    } else {
      // An error or no answer: the delete may be applied or not; its item proves nothing either way.
      uncertain.add(item);
      acked.remove(item);
      unanswered.incrementAndGet();
    }
  }

  private @Nullable WsPlayerClient connect(int port, long uid) throws InterruptedException {
    WsPlayerClient c;
    try {
      c = WsPlayerClient.connect(port);
    } catch (RuntimeException e) {
      return null;
    }
    c.send(Frames.auth(1, JwtTokens.mint(secret, uid, Duration.ofHours(1), Instant.now()), "load-" + uid));
    ServerFrame ok = c.poll(10_000);
    if (ok == null || !ok.hasAuthOk()) {
      c.close();
      return null;
    }
    return c;
  }

  /** Waits for the ack of {@code seq}, skipping pushes; false on an error, a close or 10 s of silence. */
  private static boolean awaitAck(WsPlayerClient c, long seq) throws InterruptedException {
    ServerFrame f = awaitAnswer(c, seq);
    return f != null && f.hasHeartbeatAck();
  }

  /** The answer to {@code seq}, skipping pushes; null on a close or 10 s of silence. */
  private static @Nullable ServerFrame awaitAnswer(WsPlayerClient c, long seq) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline) {
      ServerFrame f = c.poll(200);
      if (f == null) {
        if (c.closed.isDone()) {
          return null;
        }
        continue;
      }
      if (f.getSeq() == seq) {
        return f;
      }
    }
    return null;
  }

  long acks() {
    return acks.get();
  }

  long deletes() {
    return deletes.get();
  }

  long reconnects() {
    return reconnects.get();
  }

  long unanswered() {
    return unanswered.get();
  }

  /** The largest acked progress of every item not deleted (nor possibly deleted). */
  Map<Item, Long> acked() {
    return Map.copyOf(acked);
  }

  /** The items whose delete was acked. */
  Set<Item> deleted() {
    return Set.copyOf(deleted);
  }

  /** Stops every player (each finishes its heartbeat in flight) and closes its connection. */
  void stop() throws InterruptedException {
    running.set(false);
    for (Thread t : threads) {
      t.join(TimeUnit.SECONDS.toMillis(30));
    }
  }
}
