package io.playline.client;

import static io.playline.client.internal.Checks.checkArgument;

import io.playline.client.internal.ClientConfig;
import io.playline.client.internal.ClientLog;
import io.playline.client.internal.ClientCounters;
import io.playline.client.internal.ClientRuntime;
import io.playline.client.internal.ClientSession;
import io.playline.client.internal.Loop;
import io.playline.client.internal.RotatingTransport;
import io.playline.client.internal.Transport;
import io.playline.proto.lite.v1.Business;
import io.playline.proto.lite.v1.ClearHistory;
import io.playline.proto.lite.v1.ClientFrame;
import io.playline.proto.lite.v1.Cursor;
import io.playline.proto.lite.v1.DeleteItems;
import io.playline.proto.lite.v1.Error.Code;
import io.playline.proto.lite.v1.HistoryPage;
import io.playline.proto.lite.v1.HistoryQuery;
import io.playline.proto.lite.v1.HistoryRecord;
import io.playline.proto.lite.v1.ItemKey;
import io.playline.proto.lite.v1.PlayEvent;
import io.playline.proto.lite.v1.ProgressQuery;
import io.playline.proto.lite.v1.ServerFrame;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * A player's persistent stream to a Playline gateway, safe to use from any thread: authenticates
 * once, reports progress with every heartbeat, resends what a lost connection left unacked,
 * reconnects by itself (resuming the session), and answers progress and history queries over the
 * same connection.
 *
 * <p>The same client over any wire: {@code PlaylineClient} (client-sdk) carries it over Netty's
 * WebSocket or gRPC for server-side JVMs, {@code OkHttpPlaylineClient} (client-okhttp) over OkHttp's
 * WebSocket for Android; what differs is only the transport and the loop.
 *
 * <p><b>Threading.</b> Every public method is thread-safe and non-blocking, except {@link
 * #close()}, which blocks for at most the close timeout plus a few seconds. All state lives on one
 * loop (a Netty event loop, or the OkHttp client's own thread): calls hop onto it, so the client
 * takes no locks. Listeners run, and futures complete, on that loop unless a callback executor is
 * configured; they must not block it.
 *
 * <p><b>Reporting.</b> {@link #report} may be called as often as the player likes: the client keeps
 * only the latest report per item and sends what changed with each heartbeat, at the gateway's
 * interval. {@link #flush()} sends at once (call it on pause or stop); {@link #close()} flushes too.
 */
public abstract class AbstractPlaylineClient implements AutoCloseable {
  private static final ClientLog log = ClientLog.of(AbstractPlaylineClient.class);
  /** Beyond the close timeout: time for the connection's orderly close and for the loop to stop. */
  private static final long CLOSE_GRACE_MS = 2_000;
  private static final int MAX_HISTORY_LIMIT = 100;

  private final ClientConfig config;
  private final ClientRuntime runtime;
  private final Loop loop;
  private final Transport transport;
  private final ClientCounters counters = new ClientCounters();
  private final ClientSession session;
  private final AtomicBoolean closing = new AtomicBoolean();

  /** Starts a client from validated settings on {@code runtime}, which it shuts down when closed (or if this throws). */
  protected AbstractPlaylineClient(ClientConfig config, ClientRuntime runtime) {
    this.config = config;
    this.runtime = runtime;
    try {
      this.loop = config.loopTime().apply(runtime.loop());
      List<Transport> perEndpoint = new ArrayList<>();
      for (ClientConfig.Endpoint e : config.endpoints()) {
        perEndpoint.add(runtime.transport(e));
      }
      this.transport = perEndpoint.size() == 1 ? perEndpoint.get(0) : new RotatingTransport(perEndpoint);
      this.session = new ClientSession(config, loop, transport, counters);
      loop.execute(session::start);
    } catch (RuntimeException e) {
      runtime.shutdown(0);
      throw e;
    }
  }

  /** Reports progress in an item without a sub-position; see {@link #report(Business, long, long, long, long)}. */
  public void report(Business business, long oid, long progressMs, long durationMs) {
    report(business, oid, 0, progressMs, durationMs);
  }

  /**
   * Reports that the player is at {@code progressMs} of {@code subId} (a part, episode, chapter or
   * track; 0 = none) of item {@code (business, oid)}, now by the client clock. Only the latest
   * report per item is kept and sent with the next heartbeat. Thread-safe; never blocks.
   *
   * @param progressMs position in milliseconds, or -1 when finished
   * @param durationMs length in milliseconds, 0 when unknown (e.g. live)
   * @throws IllegalArgumentException when a value is out of range (the message names it)
   * @throws IllegalStateException when the client is closed
   */
  public void report(Business business, long oid, long subId, long progressMs, long durationMs) {
    checkBusiness("business", business);
    checkArgument(oid > 0, "oid: %s (expected: > 0)", oid);
    checkArgument(subId >= 0, "subId: %s (expected: >= 0, 0 = none)", subId);
    checkArgument(progressMs >= -1, "progressMs: %s (expected: >= 0, or -1 = finished)", progressMs);
    checkArgument(durationMs >= 0, "durationMs: %s (expected: >= 0, 0 = unknown)", durationMs);
    PlayEvent event = PlayEvent.newBuilder().setBusiness(business).setOid(oid).setSubId(subId)
        .setProgressMs(progressMs).setDurationMs(durationMs).setEventTimeMs(config.clock().millis()).build();
    if (closing.get() || session.state() == ConnectionState.CLOSED) {
      throw new IllegalStateException("client is closed");
    }
    try {
      loop.execute(() -> session.report(event));
    } catch (RejectedExecutionException e) {
      throw new IllegalStateException("client is closed", e);
    }
  }

  /**
   * Sends every waiting report now (call on pause or stop); the future completes once every event
   * reported before this call is acked (durable in Redis), waiting through reconnects, and fails
   * with {@code UNAVAILABLE} if the client closes first. Thread-safe; never blocks.
   */
  public CompletableFuture<Void> flush() {
    CompletableFuture<Void> done = new CompletableFuture<>();
    onLoop(done, () -> session.flush(done));
    return done;
  }

  /**
   * Call when the app goes to the background (on Android: {@code ProcessLifecycleOwner}'s {@code
   * ON_STOP}, or the player's {@code onStop}): sends every waiting report now, because the system
   * may freeze or end the process at any moment after. The same as {@link #flush()}: the future
   * completes once they are acked. Thread-safe; never blocks.
   */
  public CompletableFuture<Void> onBackground() {
    return flush();
  }

  /**
   * Call when the device's network changed (on Android: {@code
   * ConnectivityManager.NetworkCallback}'s {@code onAvailable}, or a change of the default
   * network): the connection moves to the new network at once, resuming the session and resending
   * what was unacked, instead of waiting for the old one to time out; a reconnect waiting out its
   * backoff tries at once, with the backoff reset. Ignored once closed. Thread-safe; never blocks.
   */
  public void onNetworkChanged() {
    try {
      loop.execute(session::networkChanged);
    } catch (RejectedExecutionException e) {
      log.debug("Network change after close: ignored");
    }
  }

  /**
   * Where was the user in {@code items}? Completes with the records found, in request order,
   * omitting items without progress. Thread-safe; never blocks.
   */
  public CompletableFuture<List<HistoryRecord>> progress(List<ItemKey> items) {
    items.forEach(AbstractPlaylineClient::checkItem);
    return request(ClientFrame.newBuilder().setProgressQuery(ProgressQuery.newBuilder().addAllItems(items)),
        ServerFrame.BodyCase.PROGRESS, f -> f.getProgress().getRecordsList());
  }

  /**
   * One page of the user's history, newest first. Thread-safe; never blocks.
   *
   * @param businesses only these (empty = all)
   * @param after null for the first page, else the previous page's {@code next}
   * @param limit records per page, 1..100 (0 = the gateway's default, 20)
   */
  public CompletableFuture<HistoryPage> history(List<Business> businesses, @Nullable Cursor after, int limit) {
    businesses.forEach(b -> checkBusiness("businesses", b));
    checkArgument(limit >= 0 && limit <= MAX_HISTORY_LIMIT, "limit: %s (expected: 0..%s, 0 = default)", limit,
        MAX_HISTORY_LIMIT);
    HistoryQuery.Builder q = HistoryQuery.newBuilder().addAllBusinesses(businesses).setLimit(limit);
    if (after != null) {
      q.setAfter(after);
    }
    return request(ClientFrame.newBuilder().setHistoryQuery(q), ServerFrame.BodyCase.HISTORY_PAGE,
        ServerFrame::getHistoryPage);
  }

  /** Deletes {@code items} from the user's history in every tier. Thread-safe; never blocks. */
  public CompletableFuture<Void> delete(List<ItemKey> items) {
    items.forEach(AbstractPlaylineClient::checkItem);
    return request(ClientFrame.newBuilder().setDelete(DeleteItems.newBuilder().addAllItems(items)),
        ServerFrame.BodyCase.DONE, f -> null);
  }

  /**
   * Clears the user's history of {@code businesses} (at least one; {@link #clearAll()} clears
   * everything). Thread-safe; never blocks.
   */
  public CompletableFuture<Void> clear(List<Business> businesses) {
    checkArgument(!businesses.isEmpty(), "businesses: empty (expected: at least one; clearAll() clears everything)");
    businesses.forEach(b -> checkBusiness("businesses", b));
    return request(ClientFrame.newBuilder().setClear(ClearHistory.newBuilder().addAllBusinesses(businesses)),
        ServerFrame.BodyCase.DONE, f -> null);
  }

  /** Clears the user's whole history, every business. Thread-safe; never blocks. */
  public CompletableFuture<Void> clearAll() {
    return request(ClientFrame.newBuilder().setClear(ClearHistory.newBuilder().setAllBusinesses(true)),
        ServerFrame.BodyCase.DONE, f -> null);
  }

  private <T> CompletableFuture<T> request(ClientFrame.Builder frame, ServerFrame.BodyCase kind,
      Function<ServerFrame, T> answer) {
    CompletableFuture<T> result = new CompletableFuture<>();
    onLoop(result, () -> session.request(frame, kind, answer, result));
    return result;
  }

  private void onLoop(CompletableFuture<?> result, Runnable task) {
    try {
      loop.execute(task);
    } catch (RejectedExecutionException e) {
      result.completeExceptionally(new PlaylineException(Code.UNAVAILABLE, "client closed"));
    }
  }

  /** The connection state now; thread-safe. */
  public ConnectionState state() {
    return session.state();
  }

  /** Counters since the client was built; thread-safe. */
  public ClientStats stats() {
    return counters.snapshot();
  }

  /** Connections still holding a socket or channel: at most one while running, none once closed (leak checks). */
  int liveConnections() {
    return transport.liveConnections();
  }

  /**
   * Whether no heartbeat this client sent awaits an answer on its connection, read on its loop
   * (tests: a step on manual time waits for the gateway's answers before it moves the time).
   */
  CompletableFuture<Boolean> heartbeatsAnswered() {
    CompletableFuture<Boolean> result = new CompletableFuture<>();
    onLoop(result, () -> result.complete(session.heartbeatsAnswered()));
    return result;
  }

  /**
   * Flushes, waits (at most the close timeout) for the acks, closes the connection, fails what is
   * still pending with {@code UNAVAILABLE}, and shuts down the client's own loop and threads.
   * Blocks for at most the close timeout plus a few seconds; idempotent. Called from a listener
   * (on the event loop) it cannot wait: it starts the same steps and returns at once.
   */
  @Override
  public void close() {
    if (!closing.compareAndSet(false, true)) {
      return;
    }
    if (loop.inLoop()) {
      session.close();
      session.terminated().whenComplete((v, e) -> release(0));
      return;
    }
    try {
      loop.execute(session::close);
      session.terminated().get(config.closeTimeout().toMillis() + CLOSE_GRACE_MS, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException | ExecutionException e) {
      log.debug("Client loop already gone at close: {}", e.toString());
    } catch (TimeoutException e) {
      log.warn("Playline client did not close within {} ms; forcing",
          config.closeTimeout().toMillis() + CLOSE_GRACE_MS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    release(CLOSE_GRACE_MS);
  }

  private void release(long waitMs) {
    transport.shutdown(waitMs);
    runtime.shutdown(waitMs);
  }

  private static void checkBusiness(String name, Business business) {
    checkArgument(business != Business.BUSINESS_UNSPECIFIED && business != Business.UNRECOGNIZED,
        "%s: %s (expected: a known business)", name, business);
  }

  private static void checkItem(ItemKey item) {
    checkBusiness("items.business", item.getBusiness());
    checkArgument(item.getOid() > 0, "items.oid: %s (expected: > 0)", item.getOid());
  }
}
