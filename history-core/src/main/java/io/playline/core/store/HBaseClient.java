package io.playline.core.store;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.playline.time.Time;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.client.AsyncConnection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The process's HBase connection for reads, opened on first need: nothing of the HBase client runs
 * (no connection, no ZooKeeper session, none of its timers) until something asks {@link
 * #connection()}. A node that serves heartbeats and Redis-warm reads never opens it.
 *
 * <p>One attempt at a time: concurrent first needs share it. An attempt runs on a thread of its own
 * (named {@value #THREAD_NAME}), never on the caller's, so a Netty event loop asking for the
 * connection is not blocked by ZooKeeper, the cluster id lookup or class loading; it is bounded by
 * the open timeout. A failed attempt completes its waiters with {@link RetriableStoreException}
 * and the next need tries again. {@link #close()} works whether or not the client was opened, and
 * closes a connection an attempt brings in after it.
 *
 * <p>Meters: {@code playline.hbase.client.running} (1 while open) and {@code
 * playline.hbase.client.connects{outcome=ok|failed}}. Thread-safe; {@link #connection()} never blocks.
 */
public final class HBaseClient implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(HBaseClient.class);
  /** The name of the thread an attempt to open runs on. */
  public static final String THREAD_NAME = "playline-hbase-connect";

  /** Where the client is. */
  public enum State {
    /** Nothing has needed HBase yet: no client runs. */
    IDLE,
    /** An attempt to open is under way. */
    CONNECTING,
    /** Open: reads go through. */
    RUNNING,
    /** The last attempt failed; the next need tries again. */
    FAILED,
    /** Closed: every need fails. */
    CLOSED
  }

  private final Supplier<CompletableFuture<AsyncConnection>> opener;
  private final Duration openTimeout;
  private final boolean owned;
  private final @Nullable Counter connectsOk;
  private final @Nullable Counter connectsFailed;
  private final Time time;
  private final Object lock = new Object();
  private State state = State.IDLE;
  private @Nullable CompletableFuture<AsyncConnection> attempt;
  /** The open connection, once open; read without the lock on every need. */
  private volatile @Nullable CompletableFuture<AsyncConnection> ready;

  /**
   * A client that opens its connection with {@code opener} (called on the attempt's thread; a
   * connection an attempt brings is closed by {@link #close()}), waiting at most {@code
   * openTimeout} for it; meters to {@code registry}, and how long opening took, by {@code time}, to
   * the log. {@link #lazy} is the production one; tests wrap the real factory here to inject faults.
   */
  public HBaseClient(Supplier<CompletableFuture<AsyncConnection>> opener, Duration openTimeout,
      MeterRegistry registry, Time time) {
    this(opener, openTimeout, true, registry, time);
  }

  private HBaseClient(Supplier<CompletableFuture<AsyncConnection>> opener, Duration openTimeout, boolean owned,
      @Nullable MeterRegistry registry, Time time) {
    if (openTimeout.isNegative() || openTimeout.isZero()) {
      throw new IllegalArgumentException("openTimeout: " + openTimeout + " (expected: > 0)");
    }
    this.opener = opener;
    this.openTimeout = openTimeout;
    this.owned = owned;
    this.time = time;
    if (registry == null) {
      connectsOk = null;
      connectsFailed = null;
      return;
    }
    Gauge.builder("playline.hbase.client.running", this, c -> c.state() == State.RUNNING ? 1 : 0)
        .description("1 while this process's HBase read client is open (0: no request has needed HBase yet)")
        .register(registry);
    connectsOk = connects(registry, "ok");
    connectsFailed = connects(registry, "failed");
  }

  private static Counter connects(MeterRegistry registry, String outcome) {
    return Counter.builder("playline.hbase.client.connects").tag("outcome", outcome)
        .description("Attempts to open the HBase read client, by outcome").register(registry);
  }

  /** The production client: connects to the HBase {@code configuration} names on first need. */
  public static HBaseClient lazy(Configuration configuration, Duration openTimeout, MeterRegistry registry,
      Time time) {
    return new HBaseClient(() -> ConnectionFactory.createAsyncConnection(configuration), openTimeout, registry, time);
  }

  /** A client already open over {@code connection}, which stays the caller's (tools, tests); no meters. */
  public static HBaseClient borrowing(AsyncConnection connection) {
    // Never connects, so never reads the time it is given.
    HBaseClient client = new HBaseClient(() -> CompletableFuture.completedFuture(connection), Duration.ofDays(1), false,
        null, Time.SYSTEM);
    synchronized (client.lock) {
      client.state = State.RUNNING;
      client.ready = CompletableFuture.completedFuture(connection);
    }
    return client;
  }

  /**
   * The connection, opening it if no attempt is under way: completes when it is open, or with
   * {@link RetriableStoreException} when this attempt failed or timed out, or {@link
   * IllegalStateException} once closed. Never blocks; once open, completes at once.
   */
  public CompletionStage<AsyncConnection> connection() {
    CompletableFuture<AsyncConnection> done = ready;
    if (done != null) {
      return done;
    }
    CompletableFuture<AsyncConnection> shared;
    synchronized (lock) {
      if (state == State.CLOSED) {
        return CompletableFuture.failedFuture(new IllegalStateException("the HBase client is closed"));
      }
      if (ready != null) {
        return ready;
      }
      if (attempt != null) {
        return attempt;
      }
      shared = new CompletableFuture<>();
      attempt = shared;
      state = State.CONNECTING;
    }
    Thread t = new Thread(() -> connect(shared), THREAD_NAME);
    t.setDaemon(true);
    t.start();
    return shared;
  }

  /**
   * What {@code build} makes of the open connection (tables, readers), built once, on the first
   * {@link Derived#get()}, which opens the client if it is not open yet.
   */
  public <T> Derived<T> derive(Function<AsyncConnection, T> build) {
    return new Derived<>(this, build);
  }

  /** The connection if the client is open, else null; never opens it (probes). */
  public @Nullable AsyncConnection ifOpen() {
    CompletableFuture<AsyncConnection> done = ready;
    return done == null ? null : done.getNow(null);
  }

  /** Where the client is now (probes, meters). */
  public State state() {
    synchronized (lock) {
      return state;
    }
  }

  private void connect(CompletableFuture<AsyncConnection> shared) {
    long t0 = time.nanoTime();
    CompletableFuture<AsyncConnection> opening = null;
    try {
      opening = opener.get();
      AsyncConnection connection = opening.get(openTimeout.toMillis(), TimeUnit.MILLISECONDS);
      opened(shared, connection, t0);
    } catch (TimeoutException e) {
      // A connection that arrives after all is nobody's: close it.
      opening.thenAccept(HBaseClient::closeQuietly);
      failed(shared, new RetriableStoreException("HBase did not connect within " + openTimeout.toMillis() + " ms"));
    } catch (ExecutionException e) {
      failed(shared, new RetriableStoreException("HBase connect failed", e.getCause()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      if (opening != null) {
        opening.thenAccept(HBaseClient::closeQuietly);
      }
      failed(shared, new RetriableStoreException("HBase connect interrupted", e));
    } catch (RuntimeException e) {
      failed(shared, new RetriableStoreException("HBase connect failed", e));
    }
  }

  private void opened(CompletableFuture<AsyncConnection> shared, AsyncConnection opened, long t0) {
    boolean keep;
    synchronized (lock) {
      attempt = null;
      keep = state != State.CLOSED;
      if (keep) {
        state = State.RUNNING;
        ready = CompletableFuture.completedFuture(opened);
      }
    }
    if (!keep) {
      closeQuietly(opened);
      shared.completeExceptionally(new IllegalStateException("the HBase client was closed while connecting"));
      return;
    }
    increment(connectsOk);
    log.info("HBase read client open in {} ms (first need)", TimeUnit.NANOSECONDS.toMillis(time.nanoTime() - t0));
    shared.complete(opened);
  }

  private void failed(CompletableFuture<AsyncConnection> shared, RetriableStoreException error) {
    synchronized (lock) {
      attempt = null;
      if (state != State.CLOSED) {
        state = State.FAILED;
      }
    }
    increment(connectsFailed);
    log.warn("Opening the HBase read client failed (the next request that needs HBase tries again): {}",
        error.getCause() != null ? error.getMessage() + ": " + error.getCause() : error.getMessage());
    shared.completeExceptionally(error);
  }

  private static void increment(@Nullable Counter counter) {
    if (counter != null) {
      counter.increment();
    }
  }

  private static void closeQuietly(AsyncConnection connection) {
    try {
      connection.close();
    } catch (IOException e) {
      log.warn("Closing the HBase read client failed", e);
    }
  }

  /**
   * Closes the connection if it is open (not one given to {@link #borrowing}); an
   * attempt under way closes what it brings. Idempotent; later needs fail.
   */
  @Override
  public void close() {
    AsyncConnection c;
    synchronized (lock) {
      if (state == State.CLOSED) {
        return;
      }
      state = State.CLOSED;
      c = ifOpen();
      ready = null;
    }
    if (c != null && owned) {
      closeQuietly(c);
    }
  }

  /** A value built once from the open connection; thread-safe. */
  public static final class Derived<T> {
    private final HBaseClient client;
    private final Function<AsyncConnection, T> build;
    private volatile @Nullable CompletableFuture<T> built;

    private Derived(HBaseClient client, Function<AsyncConnection, T> build) {
      this.client = client;
      this.build = build;
    }

    /** The value; opens the client first if it is not open. Never blocks. */
    public CompletionStage<T> get() {
      CompletableFuture<T> b = built;
      return b != null ? b : client.connection().thenApply(this::build);
    }

    private synchronized T build(AsyncConnection connection) {
      CompletableFuture<T> b = built;
      if (b == null) {
        b = CompletableFuture.completedFuture(build.apply(connection));
        built = b;
      }
      return b.join();
    }
  }
}
