package io.playline.gateway.push;

import io.playline.gateway.stream.ConnectionIdentity;
import io.playline.gateway.stream.StreamTransport;
import io.playline.node.push.PushConfig;
import io.playline.node.push.PushMessage;
import io.playline.node.push.PushMetrics;
import io.playline.node.push.UserNodesRegistry;
import io.playline.proto.v1.HistoryRecord;
import io.playline.time.Time;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's authenticated connections by user, and this node's entries in the shared
 * {@link UserNodesRegistry}: the first connection of a user adds the entry, activity refreshes it
 * lazily (at most once per {@link PushConfig#refreshInterval()}), the last connection to close
 * removes it. Registry calls for one user are issued inside that user's map update, so they reach
 * Redis in the order the connections came and went.
 *
 * <p>Thread-safe and non-blocking: {@link #register} is called on the connection's executor,
 * {@link #deliver} from any thread; delivery hops onto each receiving connection's executor.
 */
public final class ConnectionRegistry implements PushRegistrar {
  private static final Logger log = LoggerFactory.getLogger(ConnectionRegistry.class);

  /** One user's connections on this node (copy-on-write) and when its registry entry was refreshed. */
  private record LocalUser(List<Registration> connections, AtomicLong refreshedMs) {}

  private final ConcurrentHashMap<Long, LocalUser> users = new ConcurrentHashMap<>();
  private final UserNodesRegistry userNodes;
  private final PushConfig config;
  private final PushMetrics metrics;
  private final Time time;
  private volatile boolean closed;

  /** Entries are refreshed, and sync windows end, by {@code time}. */
  public ConnectionRegistry(UserNodesRegistry userNodes, PushConfig config, PushMetrics metrics, Time time) {
    this.userNodes = userNodes;
    this.config = config;
    this.metrics = metrics;
    this.time = time;
  }

  /**
   * Makes an authenticated connection reachable by pushes for its user until the returned
   * registration is closed. Call on the connection's executor, once, when it is authenticated.
   */
  @Override
  public Registration register(ConnectionIdentity identity, StreamTransport transport) {
    SyncCoalescer syncs = new SyncCoalescer(transport, config.coalesceWindow(), metrics, time);
    LocalUser now = users.compute(identity.uid(), (uid, user) -> {
      if (user == null) {
        if (!closed) {
          userNodes.add(uid);
        }
        AtomicLong refreshed = new AtomicLong(time.millis());
        return new LocalUser(List.of(new Registration(identity, transport, syncs, refreshed)), refreshed);
      }
      List<Registration> more = new ArrayList<>(user.connections());
      more.add(new Registration(identity, transport, syncs, user.refreshedMs()));
      return new LocalUser(List.copyOf(more), user.refreshedMs());
    });
    // The user as this update left it, whatever came after: the new registration is its last.
    return now.connections().get(now.connections().size() - 1);
  }

  /**
   * A connection of {@code uid} is active (it sent a heartbeat): refreshes this node's registry
   * entry if it was last refreshed more than the refresh interval ago. Any thread. A registered
   * connection says it through its {@link Registration#touch()}, which comes here only when due.
   */
  void touch(long uid) {
    LocalUser user = users.get(uid);
    long now = time.millis();
    long interval = config.refreshIntervalMs();
    if (user == null || now - user.refreshedMs().get() < interval) {
      return;
    }
    users.computeIfPresent(uid, (k, u) -> {
      long last = u.refreshedMs().get();
      if (now - last >= interval && u.refreshedMs().compareAndSet(last, now) && !closed) {
        userNodes.add(uid);
      }
      return u;
    });
  }

  /**
   * Hands {@code message}'s records to every connection of its user on this node except the
   * origin's (same session or device); returns how many connections it reached. Any thread.
   */
  int deliver(PushMessage message) {
    LocalUser user = users.get(message.uid());
    if (user == null) {
      return 0;
    }
    int reached = 0;
    for (Registration r : user.connections()) {
      if (!message.isOrigin(r.identity.sessionId(), r.identity.deviceId()) && r.offer(message.records())) {
        metrics.routedLocal();
        reached++;
      }
    }
    return reached;
  }

  /**
   * Another node published to this node for a user with no connection here: the registry entry
   * is stale (e.g. left by an earlier run of this node), so it is removed, unless a connection
   * of the user registered meanwhile.
   */
  void forgetIfAbsent(long uid) {
    users.compute(uid, (k, user) -> {
      if (user == null && !closed) {
        userNodes.remove(uid);
      }
      return user;
    });
  }

  /** Whether any connection of {@code uid} is registered here. */
  public boolean holds(long uid) {
    return users.containsKey(uid);
  }

  /** Users with at least one connection on this node. */
  public int users() {
    return users.size();
  }

  /**
   * Stops touching the shared registry and removes this node's entries for every user it holds,
   * waiting at most {@code timeoutMs}. Call when the gateway stops, off any event loop.
   */
  void close(long timeoutMs) {
    closed = true;
    List<CompletableFuture<Void>> removals = new ArrayList<>();
    for (Long uid : users.keySet()) {
      removals.add(userNodes.remove(uid).toCompletableFuture());
    }
    try {
      CompletableFuture.allOf(removals.toArray(new CompletableFuture<?>[0])).get(timeoutMs, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      log.warn("Removing {} users from the push registry did not finish: {}", removals.size(), e.toString());
    }
  }

  private void unregister(Registration r) {
    users.computeIfPresent(r.identity.uid(), (uid, user) -> {
      List<Registration> rest = new ArrayList<>(user.connections());
      rest.remove(r);
      if (!rest.isEmpty()) {
        return new LocalUser(List.copyOf(rest), user.refreshedMs());
      }
      if (!closed) {
        userNodes.remove(uid);
      }
      return null;
    });
  }

  /**
   * Runs {@code action} with each registered connection's transport, on that connection's
   * executor (e.g. to ask it to reconnect elsewhere during a drain). Returns how many connections
   * it was handed to.
   */
  public int forEachConnection(java.util.function.Consumer<StreamTransport> action) {
    int n = 0;
    for (LocalUser user : users.values()) {
      for (Registration r : user.connections()) {
        try {
          r.transport.executor().execute(() -> action.accept(r.transport));
          n++;
        } catch (RejectedExecutionException e) {
          // The connection's loop is already shutting down; nothing to ask of it.
        }
      }
    }
    return n;
  }

  /** Registered (authenticated) connections on this node right now. */
  public int connections() {
    int n = 0;
    for (LocalUser user : users.values()) {
      n += user.connections().size();
    }
    return n;
  }

  /** One registered connection; {@link #close()} it when the connection ends. */
  public final class Registration implements PushRegistrar.Handle {
    private final ConnectionIdentity identity;
    private final StreamTransport transport;
    private final SyncCoalescer syncs;
    /**
     * When its user's entry was last refreshed: the one clock every registration of the user shares
     * while any is registered (its {@code LocalUser}'s, handed on through every update of the user).
     */
    private final AtomicLong refreshedMs;
    private boolean unregistered;

    private Registration(ConnectionIdentity identity, StreamTransport transport, SyncCoalescer syncs,
        AtomicLong refreshedMs) {
      this.identity = identity;
      this.transport = transport;
      this.syncs = syncs;
      this.refreshedMs = refreshedMs;
    }

    /** Queues the records onto the connection's executor; false when the executor is shutting down. */
    private boolean offer(List<HistoryRecord> records) {
      try {
        transport.executor().execute(() -> {
          for (HistoryRecord r : records) {
            syncs.offer(r);
          }
        });
        return true;
      } catch (RejectedExecutionException e) {
        return false;
      }
    }

    /** The user's refresh clock, which every registration of the user shares. */
    AtomicLong refreshClock() {
      return refreshedMs;
    }

    @Override
    public void touch() {
      if (!unregistered && time.millis() - refreshedMs.get() >= config.refreshIntervalMs()) {
        ConnectionRegistry.this.touch(identity.uid());
      }
    }

    /**
     * Unregisters the connection and cancels its pending syncs. Call on the connection's
     * executor; idempotent.
     */
    @Override
    public void close() {
      if (!unregistered) {
        unregistered = true;
        syncs.close();
        unregister(this);
      }
    }
  }
}
