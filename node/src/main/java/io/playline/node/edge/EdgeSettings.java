package io.playline.node.edge;

import io.playline.core.config.Setting;
import io.playline.core.config.SettingsCatalogue;
import java.time.Duration;
import java.util.List;

/**
 * What any client of a node's listeners may spend before it is served: handshake time, frame size,
 * new connections per address, and the HTTP/2 limits of every gRPC port.
 */
public final class EdgeSettings {
  public static final Setting<Duration> HANDSHAKE_TIMEOUT = Setting.duration("handshake.timeout",
      Duration.ofSeconds(10), Duration.ofMillis(100), Duration.ofMinutes(5), "time a new connection has to finish the "
          + "WebSocket upgrade or the HTTP/2 handshake before the socket is closed (counted in "
          + "`playline_connections_handshake_timeouts_total` for WebSocket). A WebSocket connection's deadline falls in "
          + "the last quarter of this, so upgrades that arrived together do not all close together (the HTTP/2 "
          + "handshake's is grpc-java's, one value)");
  public static final Setting<Integer> FRAME_MAX_BYTES = Setting.bytes("frame.max.bytes", 64 * 1024, 256,
      16 * 1024 * 1024, "largest client frame: `FRAME_TOO_LARGE`, close 4006 (gRPC `RESOURCE_EXHAUSTED`)");
  public static final Setting<Integer> MAX_NEW_CONNECTIONS_PER_ADDRESS = Setting.intValue(
      "connection.max.new.per.address.per.second", 100, 1, 1_000_000, "new connections per second from one address, "
          + "both player ports together (a token bucket holding `connection.max.new.per.address.burst`), admitted "
          + "freely. Past it a connection is admitted on probation (`playline_connections_probation_total{reason=\"rate\"}`): "
          + "unless it authenticates as a player within `connection.abuse.probation.timeout` it is closed "
          + "(`playline_connections_refused_total{reason=\"rate\"}`), so a flood from an address shared with honest players "
          + "(a carrier's NAT) costs its strangers their connections, never the players their place. A NAT of honest "
          + "players reconnects far slower: even 10 000 players behind one address, each reconnecting every few "
          + "minutes, open under 50 a second");
  public static final Setting<Integer> NEW_CONNECTIONS_PER_ADDRESS_BURST = Setting.intValue(
      "connection.max.new.per.address.burst", 1_000, 1, 10_000_000, "new connections one address may open at once "
          + "freely before `connection.max.new.per.address.per.second` applies: the players of one NAT that arrive together "
          + "when another node drains");
  public static final Setting<Duration> ABUSE_PENALTY = Setting.duration("connection.abuse.penalty",
      Duration.ofSeconds(10), Duration.ZERO, Duration.ofHours(1), "an address whose strangers' connections were cut "
          + "for abuse `connection.abuse.strikes` times within `connection.abuse.window` (gRPC `GOAWAY "
          + "ENHANCE_YOUR_CALM` for rapid reset or a ping flood, an HTTP/2 `PROTOCOL_ERROR`; a WebSocket ping flood, "
          + "invalid framing or a malformed frame) is on probation this long: its new connections must authenticate "
          + "as a player within `connection.abuse.probation.timeout` (players are admitted as ever; strangers are "
          + "closed); 0 = off. A repeat offender's penalty doubles each time, up to `connection.abuse.penalty.max`");
  /** {@link #ABUSE_PENALTY_MAX} unless the penalty itself is longer. */
  public static final Duration ABUSE_PENALTY_MAX_DEFAULT = Duration.ofMinutes(5);
  public static final Setting<Duration> ABUSE_PENALTY_MAX = Setting.duration("connection.abuse.penalty.max",
      Setting.derived("5m, or `connection.abuse.penalty` if longer"), Duration.ZERO, Duration.ofHours(24),
      "the longest penalty: an address cut for abuse again within this long of its last penalty's end is refused "
          + "twice as long as the last time, up to this (each penalty's end lets the attacker in for one more "
          + "episode before it is cut: with 10s and 5m, an hour of attack is ~16 episodes instead of 360); an "
          + "address quiet for this long starts again at `connection.abuse.penalty`, and is remembered until then. "
          + "Equal to `connection.abuse.penalty` = no doubling")
      .rangeNote(">= `connection.abuse.penalty`");
  public static final Setting<Integer> MAX_UNPROVEN_PER_ADDRESS = Setting.intValue(
      "connection.max.unproven.per.address", 256, 1, 1_000_000, "connections from one address, both player ports "
          + "together, that have not yet proven themselves (finished the WebSocket upgrade, opened a first gRPC "
          + "stream): past it the address's oldest such connection is closed to make room for the new one "
          + "(`playline_connections_refused_total{reason=\"unproven\"}`). Bounds what idle HTTP/2 connections and "
          + "slowloris upgrades from one address hold at once (each is cut at its deadline anyway: `handshake.timeout`, "
          + "`grpc.first.stream.timeout`) without letting them keep the address's players out: an honest handshake "
          + "is young, a slowloris old (256 at a 300 ms handshake is 850 arrivals a second before a handshake in "
          + "flight is the oldest)");
  public static final Setting<Integer> MAX_TRACKED_ADDRESSES = Setting.intValue("connection.max.tracked.addresses",
      65_536, 1, 10_000_000, "addresses whose new-connection budget and penalty are remembered (about 200 bytes "
          + "each); an address is forgotten once its bucket is full and its last penalty ended "
          + "`connection.abuse.penalty.max` ago, and past the cap the least recently seen is "
          + "(`playline_connections_addresses`)");
  public static final Setting<Integer> ADDRESS_PREFIX_IPV4 = Setting.intValue("connection.address.prefix.ipv4", 32, 8,
      32, "leading bits of an IPv4 client address that make \"one address\" for every per-address budget and penalty "
          + "(new connections, unproven connections, connections per address, abuse strikes and penalties; behind "
          + "PROXY protocol, of the address the header names)");
  public static final Setting<Integer> ADDRESS_PREFIX_IPV6 = Setting.intValue("connection.address.prefix.ipv6", 64, 16,
      128, "the same for IPv6: a home or a phone is given a whole /64, so every address inside one /64 shares one "
          + "budget (an IPv4-mapped IPv6 address counts as its IPv4 address)");
  public static final Setting<Integer> ABUSE_STRIKES = Setting.intValue("connection.abuse.strikes", 10, 1, 1_000_000,
      "connections of strangers (not authenticated as a player) from one address cut for abuse within "
          + "`connection.abuse.window` before the address is put on probation (`connection.abuse.penalty`). One cut "
          + "closes only the connection that misbehaved; a player's connection cut for abuse is never counted against "
          + "its address");
  public static final Setting<Duration> ABUSE_WINDOW = Setting.duration("connection.abuse.window",
      Duration.ofMinutes(1), Duration.ofSeconds(1), Duration.ofHours(1), "the window of `connection.abuse.strikes`");
  public static final Setting<Duration> PROBATION_TIMEOUT = Setting.duration("connection.abuse.probation.timeout",
      Duration.ofSeconds(3), Duration.ofMillis(100), Duration.ofMinutes(5), "a connection admitted on probation (over its "
          + "address's `connection.max.new.per.address.per.second`, or during the address's `connection.abuse.penalty`) "
          + "that has not authenticated as a player within this of connecting (WebSocket: `AuthOk` sent; gRPC: a "
          + "stream authenticated) is closed (`playline_connections_refused_total{reason=\"rate\"|\"penalty\"}`), and one "
          + "that misbehaves before that is closed without counting again. Players behind the address authenticate well "
          + "within it and are never refused");
  public static final Setting<Integer> GRPC_MAX_CONCURRENT_CALLS = Setting.intValue(
      "grpc.max.concurrent.calls.per.connection", 100, 1, 100_000,
      "HTTP/2 `MAX_CONCURRENT_STREAMS` of the gRPC servers: further calls wait on the client");
  public static final Setting<Duration> GRPC_KEEPALIVE_PERMIT_TIME = Setting.duration("grpc.keepalive.permit.time",
      Duration.ofSeconds(10), Duration.ofSeconds(1), Duration.ofHours(1),
      "a client pinging more often is sent away (`GOAWAY ENHANCE_YOUR_CALM`)");
  public static final Setting<Duration> GRPC_MAX_CONNECTION_IDLE = Setting.duration("grpc.max.connection.idle",
      Duration.ofMinutes(5), Duration.ZERO, Duration.ofDays(30),
      "a gRPC connection without calls this long gets `GOAWAY`; 0 = never");
  public static final Setting<Duration> GRPC_MAX_CONNECTION_AGE = Setting.duration("grpc.max.connection.age",
      Duration.ofHours(1), Duration.ZERO, Duration.ofDays(30), "a gRPC connection this old (±10 % jitter) gets "
          + "`GOAWAY` (clients reconnect, spreading onto new nodes); 0 = never");
  public static final Setting<Duration> GRPC_MAX_CONNECTION_AGE_GRACE = Setting.duration(
      "grpc.max.connection.age.grace", Duration.ofSeconds(30), Duration.ZERO, Duration.ofHours(1),
      "the calls of a connection sent away for its age end `UNAVAILABLE` after this");
  public static final Setting<Integer> GRPC_MAX_RST_FRAMES = Setting.intValue("grpc.max.rst.frames.per.window", 200,
      1, 1_000_000, "`RST_STREAM` frames one player gRPC connection may send or be sent per "
          + "`grpc.rst.window` (HTTP/2 rapid reset, CVE-2023-44487; the internal API port has "
          + "`api.max.rst.frames.per.window`): more gets `GOAWAY ENHANCE_YOUR_CALM` and the connection is closed "
          + "(counted in "
          + "`playline_grpc_connections_cut_total{reason=\"rapid_reset\"}`)");
  public static final Setting<Integer> GRPC_MAX_EARLY_RESETS_PER_ADDRESS = Setting.intValue(
      "grpc.max.early.resets.per.address", 50, 1, 1_000_000, "`RST_STREAM` frames one address may send on the "
          + "player gRPC port, all its connections together, per `grpc.rst.window`, for streams the server has not "
          + "yet answered (no response headers sent): the connection whose reset goes over it, and each other "
          + "connection of that address at its next such reset while the count or the address's penalty lasts, gets "
          + "`GOAWAY ENHANCE_YOUR_CALM` and is closed, and the address is penalized (`connection.abuse.penalty`; "
          + "counted in `playline_grpc_connections_cut_total{reason=\"rapid_reset\"}`). A rapid reset from many "
          + "connections of one address thus starts about this many calls, plus one per connection, before it is "
          + "cut. A player answered once (after `Auth`) no longer counts when it cancels its stream, so honest "
          + "players behind one NAT stay far below it");
  public static final Setting<Duration> GRPC_RST_WINDOW = Setting.duration("grpc.rst.window", Duration.ofSeconds(10),
      Duration.ofSeconds(1), Duration.ofHours(1), "the window of `grpc.max.rst.frames.per.window`, "
          + "`grpc.max.early.resets.per.address` and `api.max.rst.frames.per.window`")
      .rangeNote("whole seconds");
  public static final Setting<Duration> GRPC_FIRST_STREAM_TIMEOUT = Setting.duration("grpc.first.stream.timeout",
      Duration.ofSeconds(20), Duration.ofMillis(100), Duration.ofHours(1), "a gRPC connection that has not opened "
          + "a stream this long after connecting is closed (counted in "
          + "`playline_grpc_connections_cut_total{reason=\"no_stream\"}`); each connection's deadline falls in the last "
          + "quarter of this");

  public static final SettingsCatalogue CATALOGUE = new SettingsCatalogue("Connection admission and HTTP/2", List.of(
      HANDSHAKE_TIMEOUT, FRAME_MAX_BYTES, MAX_NEW_CONNECTIONS_PER_ADDRESS, NEW_CONNECTIONS_PER_ADDRESS_BURST,
      ADDRESS_PREFIX_IPV4, ADDRESS_PREFIX_IPV6, ABUSE_STRIKES, ABUSE_WINDOW, ABUSE_PENALTY, ABUSE_PENALTY_MAX,
      PROBATION_TIMEOUT, MAX_UNPROVEN_PER_ADDRESS, MAX_TRACKED_ADDRESSES,
      GRPC_MAX_CONCURRENT_CALLS, GRPC_KEEPALIVE_PERMIT_TIME, GRPC_MAX_CONNECTION_IDLE, GRPC_MAX_CONNECTION_AGE, GRPC_MAX_CONNECTION_AGE_GRACE, GRPC_MAX_RST_FRAMES,
      GRPC_MAX_EARLY_RESETS_PER_ADDRESS, GRPC_RST_WINDOW, GRPC_FIRST_STREAM_TIMEOUT));

  private EdgeSettings() {}
}
