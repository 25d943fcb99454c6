package io.playline.node.settings;

import static io.playline.core.config.Setting.derived;

import io.playline.core.config.Setting;
import io.playline.core.config.SettingsCatalogue;
import io.playline.node.edge.TrustedProxies;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * What every Playline node (gateway, api and job roles) is built with: its name, I/O threads, bind
 * address, admin port, TLS and the PROXY protocol.
 */
public final class NodeSettings {
  public static final Setting<String> BIND_HOST = Setting.string("bind.host", "0.0.0.0", "address the player "
      + "servers bind (and the internal API and admin servers unless `api.bind.host` / `admin.bind.host`); "
      + "`bin/playline standalone` binds 127.0.0.1 unless this is set");
  public static final Setting<Integer> ADMIN_PORT = Setting.port("admin.port", 9100, true,
      "the admin HTTP port (`/metrics`, `/livez`, `/readyz`)");
  public static final Setting<String> ADMIN_BIND_HOST = Setting.string("admin.bind.host", derived("`bind.host`"),
      "address the admin HTTP server (`/metrics`, `/livez`, `/readyz`) binds");
  public static final Setting<Optional<String>> ADMIN_TOKEN = Setting.secret("admin.token", "unset", "when set, "
      + "`/metrics` answers only requests with `Authorization: Bearer <token>` (401 otherwise); the probes stay open")
      .rangeNote("≥ 16 characters");
  public static final Setting<Integer> ADMIN_MAX_CONNECTIONS = Setting.intValue("admin.max.connections", 64, 1, 100_000,
      "open connections on the admin port; more are closed at accept (counted in "
          + "`playline_admin_refused_total{reason=\"connections\"}`)");
  public static final Setting<Integer> ADMIN_MAX_CONNECTIONS_PER_ADDRESS = Setting.intValue(
      "admin.max.connections.per.address", 16, 1, 100_000, "of `admin.max.connections`, those open from one address "
          + "(a scraper, a load balancer's health checks); more are closed at accept (counted in "
          + "`playline_admin_refused_total{reason=\"address\"}`): one address holding slow requests cannot take "
          + "every admin connection from the scrapers and health checks");
  public static final Setting<Duration> ADMIN_REQUEST_TIMEOUT = Setting.duration("admin.request.timeout",
      Duration.ofSeconds(10), Duration.ofMillis(100), Duration.ofMinutes(5), "an admin connection must deliver a "
          + "whole request (headers and body) this soon after connecting or after the answer to its previous request, "
          + "else it is "
          + "closed: a slowloris trickling header bytes is cut (`playline_admin_refused_total{reason=\"timeout\"}`); each "
          + "deadline falls in the last quarter of this");
  public static final Setting<Optional<String>> TLS_CERT = Setting.optional("tls.cert", "unset (plain text)",
      "PEM certificate chain (leaf first): TLS on the WebSocket (wss), player gRPC and internal API ports "
          + "([security](security.md#tls))").rangeNote("with `tls.key`");
  public static final Setting<Optional<String>> TLS_KEY = Setting.optional("tls.key", "unset",
      "the PKCS#8 key of `tls.cert`").rangeNote("with `tls.cert`");
  public static final Setting<Optional<String>> API_TLS_CLIENT_CA = Setting.optional("api.tls.client.ca", "unset",
      "PEM CA certificates: the internal API requires a client certificate from one of them (mTLS), which is then "
          + "the credential").rangeNote("needs `tls.cert`");
  public static final Setting<Duration> TLS_RELOAD_INTERVAL = Setting.duration("tls.reload.interval",
      Duration.ofMinutes(1), Duration.ofMillis(100), Duration.ofDays(1), "how often the certificate, key and client "
          + "CA files are checked and, when changed, reloaded for new connections");
  public static final Setting<String> TLS_PROVIDER = Setting.string("tls.provider", "auto", "`auto`: OpenSSL "
      + "through netty-tcnative when it loads, else the JDK; `openssl`: refuse to start without it; `jdk`")
      .rangeNote("`auto`, `openssl` or `jdk`");
  public static final Setting<Boolean> PROXY_PROTOCOL = Setting.bool("proxy.protocol", false, "the WebSocket and "
      + "player gRPC ports expect a PROXY protocol header (v1 or v2) first, as sent by HAProxy, AWS NLB or Envoy, and "
      + "take the client's address from it (for `connection.max.per.address` and logs); connections without one are "
      + "closed");
  public static final Setting<String> PROXY_TRUSTED_CIDRS = Setting.string("proxy.trusted.cidrs",
      TrustedProxies.PRIVATE_RANGES, "with `proxy.protocol`, the peers (load balancers) allowed to connect and send "
          + "a PROXY header: address literals with a prefix length, comma-separated; a connection from anywhere else "
          + "is closed at accept, before it can claim an address (counted in `playline_proxy_refused_total`)")
      .rangeNote("address literals, no host names");
  public static final Setting<String> NODE_ID = Setting.string("node.id", derived("host name + pid"),
      "this node's id in sessions, the push registry and logs");
  public static final Setting<Integer> IO_THREADS = Setting.intValue("io.threads", 0, 0, 256,
      "Netty I/O threads of the players' ports, 0 = one per core; every player connection lives on one of them (the "
          + "internal API's run on `api.io.threads`, the admin port's on a thread of their own, `playline-admin`)");
  public static final Setting<Integer> API_IO_THREADS = Setting.intValue("api.io.threads", 0, 0, 256,
      "Netty I/O threads of the internal API's ports (gRPC and Connect HTTP), apart from the players' (`io.threads`), "
          + "0 = one per core: a backend's requests are read, answered and encoded there, never in line with a "
          + "player's heartbeats; on a node that serves both (standalone) its queries' Redis commands are also "
          + "written and decoded there, each loop with a Redis client of its own (its connection; the node "
          + "client's timer and computation threads), so a query is answered on the loop its connection lives "
          + "on (`playline-api` threads, started at start by those clients, or else by the API's first "
          + "connection)");
  public static final Setting<Boolean> IO_REDIS_SHARED = Setting.bool("io.redis.shared", true, "the node's Redis "
      + "client for the players' writes and reads (and the heartbeat batcher) run on the first I/O loop, so that loop's connections are read, batched, written "
      + "to Redis and acked without a thread hop; `false` gives Redis a thread of its own (costs ~25 % more gateway "
      + "CPU per heartbeat at peak, see docs/benchmarks/heartbeats.md)");

  public static final SettingsCatalogue CATALOGUE = new SettingsCatalogue("Node: addresses, threads, admin port and TLS", List.of(
      BIND_HOST, ADMIN_PORT, ADMIN_BIND_HOST, ADMIN_TOKEN, ADMIN_MAX_CONNECTIONS, ADMIN_MAX_CONNECTIONS_PER_ADDRESS,
      ADMIN_REQUEST_TIMEOUT,
      TLS_CERT, TLS_KEY, API_TLS_CLIENT_CA, TLS_RELOAD_INTERVAL, TLS_PROVIDER, PROXY_PROTOCOL,
      PROXY_TRUSTED_CIDRS, NODE_ID, IO_THREADS, API_IO_THREADS, IO_REDIS_SHARED));

  private NodeSettings() {}
}
