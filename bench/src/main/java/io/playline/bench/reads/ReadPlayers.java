package io.playline.bench.reads;

import io.playline.bench.load.LoadGenerator;
import io.playline.bench.load.LoadSnapshot;
import io.playline.bench.load.LoadSpec;
import io.playline.bench.load.PageQueries;
import io.playline.roles.endpoints.Endpoints;
import io.playline.roles.endpoints.Endpoints.Serves;
import io.playline.time.Time;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * The player WebSockets of {@code bench reads}: the heartbeat load beside every run ({@code
 * --heartbeats}) and the fleets that send the {@code stream-*} kinds' queries. Control thread only.
 */
final class ReadPlayers implements AutoCloseable {
  /** Queries per second a stream player offers at most: under the gateway's default 20 frames/s per connection. */
  private static final double STREAM_QUERIES_PER_PLAYER = 15;

  private final Endpoints root;
  /** The key player tokens are signed with ({@code auth.secret}, else the standalone's development secret). */
  private final String authSecret;
  /** The heartbeat load beside the reads (--heartbeats), or null. */
  private @Nullable LoadGenerator heartbeats;

  ReadPlayers(Endpoints root, String authSecret) {
    this.root = root;
    this.authSecret = authSecret;
  }

  /** The heartbeat load's acks so far, or null without one. */
  @Nullable LoadSnapshot heartbeats() {
    LoadGenerator h = heartbeats;
    return h == null ? null : h.snapshot();
  }

  /**
   * Opens {@code count} player connections (users {@code base + 10 000 000 ...}, not the readers')
   * sending one-event heartbeats every {@code interval}, and waits (bounded) until all are open.
   */
  void startHeartbeats(int count, Duration interval, long base) throws InterruptedException {
    heartbeats = players(count, base + 10_000_000L, 1, 4, interval.toMillis(), LoadSpec.Query.NONE, null,
        Duration.ofMinutes(2));
    System.out.printf("  heartbeats: %d of %d connections open, one event every %d ms each%n",
        heartbeats.snapshot().open(), count, interval.toMillis());
  }

  /**
   * Starts {@code count} player WebSockets to the endpoints file's gateway (users {@code uidBase ...})
   * and waits, at most {@code openWithin}, until all are open. {@code intervalMs} 0 = rate pacing.
   */
  private LoadGenerator players(int count, long uidBase, int events, int window, long intervalMs,
      LoadSpec.Query query, @Nullable PageQueries queries, Duration openWithin) throws InterruptedException {
    URI ws = URI.create(root.serves(Serves::websocket).orElseThrow());
    LoadGenerator fleet = LoadGenerator.start(new LoadSpec("ws", List.of(ws), 0, count, 5000, 2, authSecret,
        uidBase, LoadSpec.FlagMode.TODAY, java.time.ZoneId.of("UTC"), events, window, 2000, 1, intervalMs, intervalMs,
        query), queries);
    long deadline = Time.SYSTEM.nanoTime() + openWithin.toNanos();
    while (fleet.snapshot().open() < count && Time.SYSTEM.nanoTime() - deadline < 0) {
      Thread.sleep(50);
    }
    return fleet;
  }

  /**
   * One stream-query run: a player WebSocket per user of {@code who}, each with at most one query in
   * flight, open-loop at {@code rate} queries/s in total (latency from each query's due time; a
   * player whose query is still out skips its turn). {@code rate} 0 = the most the players may
   * offer: {@link #STREAM_QUERIES_PER_PLAYER} each, under the gateway's per-connection frame limit
   * ({@code connection.max.frames.per.second}, 20), as real players stay.
   */
  ReadLoops.Result streamRun(ReadLoops loops, String kind, int pass, double rate, Duration warm, Duration window,
      StoredReads.StreamPlayers who) throws InterruptedException {
    int players = who.count();
    who.prepare().run();
    LoadSpec.Query query = kind.contains("stream-progress") ? LoadSpec.Query.PROGRESS : LoadSpec.Query.PAGE;
    try (LoadGenerator fleet = players(players, who.uidBase(), 0, 1, 0, query, who.queries(),
        Duration.ofSeconds(60))) {
      double offered = rate > 0 ? rate : players * STREAM_QUERIES_PER_PLAYER;
      fleet.setRate(offered, Duration.ZERO);
      Thread.sleep(warm.toMillis());
      long[] before = loops.cpuNow(loops.serverPid());
      LoadSnapshot from = fleet.snapshot();
      LoadSnapshot hbFrom = heartbeats();
      Thread.sleep(window.toMillis());
      LoadSnapshot to = fleet.snapshot();
      double[] hb = ReadLoops.heartbeatFigures(hbFrom, heartbeats());
      long[] after = loops.cpuNow(loops.serverPid());
      long n = to.acked() - from.acked();
      long errors = 0;
      for (int c = 0; c < to.errors().length; c++) {
        errors += to.errors()[c] - from.errors()[c];
      }
      var h = to.interval();
      double seconds = (to.nanos() - from.nanos()) / 1e9;
      ReadLoops.Result r = new ReadLoops.Result(kind, pass, n / seconds, h.getValueAtPercentile(50) / 1000.0,
          h.getValueAtPercentile(99) / 1000.0, h.getValueAtPercentile(99.9) / 1000.0,
          ReadLoops.perRequest(before[0], after[0], n), ReadLoops.perRequest(before[3], after[3], n),
          ReadLoops.perRequest(before[1], after[1], n), ReadLoops.perRequest(before[2], after[2], n), errors, hb[0],
          hb[1]);
      if (n == 0) {
        System.out.printf("  %s: no answers: %d of %d players open, %d sent, %d skipped, closes %s%n", kind, to.open(),
            players, to.sent() - from.sent(), to.skipped() - from.skipped(), to.closes());
      }
      System.out.printf(Locale.ROOT, "  %-19s p%d %9.0f req/s%s  p50 %.2f ms  p99 %.2f ms  errors %d%s%n", kind, pass,
          r.perSecond(), String.format(Locale.ROOT, " (offered %.0f, skipped %d)", offered,
              to.skipped() - from.skipped()), r.p50(), r.p99(), r.errors(), ReadLoops.heartbeatNote(r));
      return r;
    }
  }

  @Override
  public void close() {
    if (heartbeats != null) {
      heartbeats.close();
    }
  }
}
