package io.playline.gateway.config;

import static io.playline.core.config.Setting.derived;

import io.playline.core.config.Setting;
import io.playline.core.config.SettingsCatalogue;
import java.time.Duration;
import java.util.List;

/** What one player connection, one user and one node may do, on both transports; see also the limits section. */
public final class LimitSettings {
  public static final Setting<Duration> HEARTBEAT_INTERVAL = Setting.duration("heartbeat.interval",
      Duration.ofSeconds(15), Duration.ofSeconds(1), Duration.ofMinutes(5),
      "the heartbeat cadence clients are told in `AuthOk`");
  public static final Setting<Duration> IDLE_TIMEOUT = Setting.duration("idle.timeout",
      derived("3 × `heartbeat.interval`"), Duration.ofSeconds(2), Duration.ofMinutes(30),
      "no frame for this long closes the connection: `IDLE_TIMEOUT`, close 4008")
      .rangeNote("> `heartbeat.interval`");
  public static final Setting<Integer> MAX_FRAMES_PER_SECOND = Setting.intValue("connection.max.frames.per.second", 20,
      1, 100_000, "frames per second per connection: `RATE_LIMITED` (frame dropped); above 2× the limit, close 4003");
  public static final Setting<Integer> MAX_UNSENT_BYTES = Setting.bytes("connection.max.unsent.bytes", 1 << 20,
      16 * 1024, 256 << 20, "bytes that may wait unsent on one player connection: past it the client is not reading "
          + "and is closed (`SLOW_CONSUMER`, 4015)");
  public static final Setting<Integer> MAX_PINGS_PER_SECOND = Setting.intValue("connection.max.pings.per.second", 10,
      1, 100_000, "WebSocket ping and pong frames per second per authenticated connection (before `AuthOk` none "
          + "is accepted: `UNAUTHENTICATED`, close 4001): past it `RATE_LIMITED`, close 4003 (counted in "
          + "`playline_connections_control_refused_total`)");
  public static final Setting<Integer> MAX_CONNECTIONS = Setting.intValue("connection.max", 200_000, 1, 10_000_000,
      "player connections on this node, both transports: `TOO_MANY_CONNECTIONS` right after the upgrade / stream "
          + "start, close 4009");
  public static final Setting<Integer> MAX_CONNECTIONS_PER_ADDRESS = Setting.intValue("connection.max.per.address",
      10_000, 1, 1_000_000, "connections per remote address: `TOO_MANY_CONNECTIONS`, close 4009");
  public static final Setting<Integer> MAX_CONNECTIONS_PER_USER = Setting.intValue("connection.max.per.user", 32, 1,
      100_000, "authenticated connections of one user on this node: `TOO_MANY_CONNECTIONS` in answer to `Auth`, "
          + "close 4009");
  public static final Setting<Integer> USER_MAX_EVENTS_PER_SECOND = Setting.intValue("user.max.events.per.second",
      100, 1, 1_000_000, "heartbeat events per second of one user across its connections and gateway nodes (a "
          + "token bucket per node holding ten seconds' worth, so an SDK's resend of its unacked events after a "
          + "reconnect passes; each event charged 1 + the other nodes known to hold the user, so the nodes together "
          + "grant one budget; kept a minute after the user's last connection closes): a heartbeat over it is "
          + "`RATE_LIMITED` with `retry_after_ms`, not applied, the connection stays open "
          + "(`playline_user_budget_refusals_total{budget=\"events\"}`)");
  public static final Setting<Integer> USER_MAX_DELETES_PER_MINUTE = Setting.intValue("user.max.deletes.per.minute",
      120, 1, 1_000_000, "items deleted (a clear counts as one) per minute by one user over the player stream, across "
          + "its connections and gateway nodes (a token bucket per node holding one minute, shared as the events "
          + "budget is): over it `RATE_LIMITED` with `retry_after_ms`, nothing applied, the connection stays open "
          + "(`playline_user_budget_refusals_total{budget=\"deletes\"}`). The internal API is not budgeted");
  public static final Setting<Integer> USER_MAX_AUTHS_PER_MINUTE = Setting.intValue("user.max.auths.per.minute", 60,
      1, 1_000_000, "authentications (token or resumed session) of one user per minute, checked once the "
          + "credential is verified and before any session is written to Redis (a token bucket per node holding "
          + "`user.max.auths.burst`, shared with the other nodes then known to hold the user): over it `RATE_LIMITED` with "
          + "`retry_after_ms`, then close 4003 "
          + "(`playline_user_budget_refusals_total{budget=\"auths\"}`)");
  public static final Setting<Integer> USER_MAX_AUTHS_BURST = Setting.intValue("user.max.auths.burst", 8, 1,
      1_000_000, "how many of `user.max.auths.per.minute` one user may spend at once (the auths bucket's size, at "
          + "most the per-minute budget; it refills at the per-minute rate): a family's devices reconnecting together after a node is lost pass, "
          + "an account authenticating over and over is refused within about a second");
  public static final Setting<Duration> USER_AUTH_REFUSAL_HOLD = Setting.duration("user.auth.refusal.hold",
      Duration.ofMillis(500), Duration.ZERO, Duration.ofMinutes(1), "an `Auth` over `user.max.auths.per.minute` is "
          + "answered (`RATE_LIMITED`, close 4003) after its connection was held this long, or its `retry_after_ms` if "
          + "shorter: a client that reconnects the moment it is refused (a reconnect bug, or a churn against its own "
          + "account) is slowed to one attempt per hold per connection, and the node spends a timer on it instead of "
          + "a new connection, upgrade and token check each time (`playline_user_auth_refusals_held`). A user within "
          + "its budget is never held; 0 answers at once");
  public static final Setting<Integer> USER_AUTH_REFUSAL_HOLD_MAX_CONNECTIONS = Setting.intValue(
      "user.auth.refusal.hold.max.connections", 1_000, 0, 100_000, "connections held by `user.auth.refusal.hold` on "
          + "this node at once, all users together: past it a refusal is answered at once "
          + "(`playline_user_auth_refusals_unheld_total`), so what the holds keep open stays far below the node's "
          + "descriptors whatever one account does");
  public static final Setting<Integer> USER_MAX_REFUSALS_BEFORE_CLOSE = Setting.intValue(
      "user.max.refusals.before.close", 10, 1, 10_000, "heartbeats with events one connection may send while "
          + "the `retry_after_ms` of its last events refusal runs (each answered `RATE_LIMITED` at once: its events "
          + "neither validated nor applied, the user's bucket not touched; room for what a client had in flight when the "
          + "refusal reached it): one more gets a last `RATE_LIMITED` and close 4003 "
          + "(`playline_user_budget_closes_total{budget=\"events\"}`)");


  public static final SettingsCatalogue CATALOGUE = new SettingsCatalogue("Connection limits", List.of(
      HEARTBEAT_INTERVAL, IDLE_TIMEOUT, MAX_FRAMES_PER_SECOND, MAX_PINGS_PER_SECOND, MAX_UNSENT_BYTES,
      MAX_CONNECTIONS, MAX_CONNECTIONS_PER_ADDRESS, MAX_CONNECTIONS_PER_USER, USER_MAX_EVENTS_PER_SECOND, USER_MAX_DELETES_PER_MINUTE, USER_MAX_AUTHS_PER_MINUTE,
      USER_MAX_AUTHS_BURST, USER_AUTH_REFUSAL_HOLD, USER_AUTH_REFUSAL_HOLD_MAX_CONNECTIONS, USER_MAX_REFUSALS_BEFORE_CLOSE));

  private LimitSettings() {}
}
