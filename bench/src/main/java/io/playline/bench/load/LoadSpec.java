package io.playline.bench.load;

import java.net.URI;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one generator process does: which connections (a slice of global indices) it opens to
 * which targets, as whom, from which loopback addresses, and how it paces heartbeats. Global index
 * {@code i} is user {@code uidBase + i}, talks to {@code targets[i % targets.size()]} and binds
 * {@code 127.0.0.(firstAddress + i / perAddress)}, so slices in different processes never share a
 * user or overload an address. Immutable; travels to child processes as {@link #toArgs()}.
 *
 * @param transport {@code ws} or {@code grpc}
 * @param targets {@code ws://host:port/path} or {@code grpc://host:port} URIs, loopback only
 * @param firstIndex first global connection index of this slice
 * @param connections connections in this slice
 * @param perAddress connections per local source address
 * @param firstAddress last octet of the first source address 127.0.0.x
 * @param secret HS256 secret the tokens are signed with
 * @param uidBase user id of global index 0
 * @param flagMode what the clients send as flag_date
 * @param zone the service's first-today zone (for {@link FlagMode#TODAY})
 * @param eventsPerHeartbeat play events per heartbeat (0 = keep-alives)
 * @param window heartbeats a connection may have unacked before it skips one
 * @param connectRate new connections per second
 * @param ioThreads event loop threads
 * @param intervalMinMs with intervalMaxMs: per-connection heartbeat interval (interval pacing); 0 = rate pacing
 * @param intervalMaxMs upper bound of the interval
 * @param query what each paced frame is: a heartbeat ({@link Query#NONE}) or a query over the stream,
 *     answered by its result instead of an ack
 */
public record LoadSpec(String transport, List<URI> targets, int firstIndex, int connections, int perAddress,
    int firstAddress, String secret, long uidBase, FlagMode flagMode, ZoneId zone, int eventsPerHeartbeat, int window,
    int connectRate, int ioThreads, long intervalMinMs, long intervalMaxMs, Query query) {

  /** What a player sends when its pacer asks. */
  public enum Query {
    /** A heartbeat, answered by its ack. */
    NONE,
    /** A {@code ProgressQuery} of the user's items oid 1..10 (video), answered by a {@code ProgressResult}. */
    PROGRESS,
    /** A {@code HistoryQuery} for the first page of 20, answered by a {@code HistoryPage}. */
    PAGE
  }

  /** Players that send heartbeats. */
  public LoadSpec(String transport, List<URI> targets, int firstIndex, int connections, int perAddress,
      int firstAddress, String secret, long uidBase, FlagMode flagMode, ZoneId zone, int eventsPerHeartbeat, int window,
      int connectRate, int ioThreads, long intervalMinMs, long intervalMaxMs) {
    this(transport, targets, firstIndex, connections, perAddress, firstAddress, secret, uidBase, flagMode, zone,
        eventsPerHeartbeat, window, connectRate, ioThreads, intervalMinMs, intervalMaxMs, Query.NONE);
  }

  /** What clients echo as {@code flag_date}. */
  public enum FlagMode {
    /** They already hold today's date (learned earlier today) and echo it from the first frame. */
    TODAY,
    /** They start empty and echo whatever the server last gave them. */
    LEARNED,
    /** They never send a flag date (clients that do not implement the echo). */
    NONE
  }

  public LoadSpec {
    targets = List.copyOf(targets);
    if (targets.isEmpty()) {
      throw new IllegalArgumentException("targets: none (expected: at least one)");
    }
    for (URI t : targets) {
      if (t.getHost() == null || !t.getHost().startsWith("127.")) {
        throw new IllegalArgumentException("target " + t + " (expected: a 127.0.0.0/8 loopback address)");
      }
    }
    if (!transport.equals("ws") && !transport.equals("grpc")) {
      throw new IllegalArgumentException("transport: " + transport + " (expected: ws or grpc)");
    }
    if (connections < 0 || perAddress <= 0 || window <= 0 || connectRate <= 0 || ioThreads <= 0) {
      throw new IllegalArgumentException("connections, perAddress, window, connectRate, ioThreads: "
          + connections + ", " + perAddress + ", " + window + ", " + connectRate + ", " + ioThreads
          + " (expected: connections >= 0, the rest > 0)");
    }
    int lastAddress = firstAddress + (firstIndex + Math.max(0, connections - 1)) / perAddress;
    if (firstAddress < 1 || lastAddress > 254) {
      throw new IllegalArgumentException("source addresses 127.0.0." + firstAddress + "..127.0.0." + lastAddress
          + " (expected: within 127.0.0.1..254; raise --per-address)");
    }
    if (intervalMinMs < 0 || intervalMaxMs < intervalMinMs) {
      throw new IllegalArgumentException("interval: " + intervalMinMs + ".." + intervalMaxMs + " ms");
    }
  }

  public boolean intervalPacing() {
    return intervalMinMs > 0;
  }

  /** The same spec for {@code count} connections starting at global index {@code first}. */
  public LoadSpec slice(int first, int count) {
    return new LoadSpec(transport, targets, first, count, perAddress, firstAddress, secret, uidBase, flagMode, zone,
        eventsPerHeartbeat, window, connectRate, ioThreads, intervalMinMs, intervalMaxMs, query);
  }

  /** The same spec with another connect rate (a child gets its share). */
  public LoadSpec withConnectRate(int rate) {
    return new LoadSpec(transport, targets, firstIndex, connections, perAddress, firstAddress, secret, uidBase,
        flagMode, zone, eventsPerHeartbeat, window, Math.max(1, rate), ioThreads, intervalMinMs, intervalMaxMs, query);
  }

  /** Source address octet of global index {@code i}. */
  public int addressOctet(int i) {
    return firstAddress + i / perAddress;
  }

  /** {@code key=value} arguments for a child process; the secret travels in the environment instead. */
  public List<String> toArgs() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("transport", transport);
    m.put("targets", String.join(",", targets.stream().map(URI::toString).toList()));
    m.put("firstIndex", Integer.toString(firstIndex));
    m.put("connections", Integer.toString(connections));
    m.put("perAddress", Integer.toString(perAddress));
    m.put("firstAddress", Integer.toString(firstAddress));
    m.put("uidBase", Long.toString(uidBase));
    m.put("flagMode", flagMode.name());
    m.put("zone", zone.getId());
    m.put("events", Integer.toString(eventsPerHeartbeat));
    m.put("window", Integer.toString(window));
    m.put("connectRate", Integer.toString(connectRate));
    m.put("ioThreads", Integer.toString(ioThreads));
    m.put("intervalMinMs", Long.toString(intervalMinMs));
    m.put("intervalMaxMs", Long.toString(intervalMaxMs));
    m.put("query", query.name());
    List<String> args = new ArrayList<>();
    m.forEach((k, v) -> args.add(k + "=" + v));
    return args;
  }

  /** Parses {@link #toArgs()}. */
  public static LoadSpec fromArgs(List<String> args, String secret) {
    Map<String, String> m = new LinkedHashMap<>();
    for (String a : args) {
      int eq = a.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("not key=value: " + a);
      }
      m.put(a.substring(0, eq), a.substring(eq + 1));
    }
    List<URI> targets = new ArrayList<>();
    for (String t : get(m, "targets").split(",")) {
      targets.add(URI.create(t));
    }
    return new LoadSpec(get(m, "transport"), targets, Integer.parseInt(get(m, "firstIndex")),
        Integer.parseInt(get(m, "connections")), Integer.parseInt(get(m, "perAddress")),
        Integer.parseInt(get(m, "firstAddress")), secret, Long.parseLong(get(m, "uidBase")),
        FlagMode.valueOf(get(m, "flagMode")), ZoneId.of(get(m, "zone")), Integer.parseInt(get(m, "events")),
        Integer.parseInt(get(m, "window")), Integer.parseInt(get(m, "connectRate")),
        Integer.parseInt(get(m, "ioThreads")), Long.parseLong(get(m, "intervalMinMs")),
        Long.parseLong(get(m, "intervalMaxMs")), Query.valueOf(m.getOrDefault("query", Query.NONE.name())));
  }

  private static String get(Map<String, String> m, String key) {
    String v = m.get(key);
    if (v == null) {
      throw new IllegalArgumentException("missing " + key);
    }
    return v;
  }
}
