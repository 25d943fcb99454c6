package io.playline.api.config;

import static io.playline.core.config.Setting.derived;

import io.playline.core.config.Setting;
import io.playline.core.config.SettingsCatalogue;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** Who may call the internal API and where it listens ({@link ApiConfig}); its mTLS is the node's keys. */
public final class ApiSettings {
  public static final Setting<Optional<String>> SECRET = Setting.secret("api.secret",
      "dev key (standalone only); required (api role)", "every internal API call but health needs a service token "
          + "signed with it (`bin/playline token --service NAME`)")
      .rangeNote("≥ 32 bytes, HS256, not `auth.secret`'s key");
  public static final Setting<Integer> PORT = Setting.port("api.port", 9091, true, "the internal gRPC API's port");
  public static final Setting<String> BIND_HOST = Setting.string("api.bind.host", derived("`bind.host`"),
      "address the internal API binds: keep it on an internal interface");
  public static final Setting<Integer> MAX_CONNECTIONS = Setting.intValue("api.max.connections", 4_096, 1,
      10_000_000, "TCP connections open on the internal API port of this node. Past it a new connection takes the "
          + "place of a stranger's — one on which no call carried a valid service token (only health, or refused "
          + "calls) — of the address holding the most, which is closed "
          + "(`playline_grpc_connections_cut_total{server=\"api\", reason=\"gave_way\"}`); when every connection proved "
          + "a token it is closed at accept, before TLS or HTTP/2 "
          + "(`playline_grpc_connections_refused_total{server=\"api\", reason=\"node\"}`; counted now: "
          + "`playline_grpc_connections{server=\"api\"}`)");
  public static final Setting<Integer> MAX_CONNECTIONS_PER_ADDRESS = Setting.intValue(
      "api.max.connections.per.address", 1_024, 1, 10_000_000, "TCP connections open on the internal API port from "
          + "one address (a backend's channel pool): past it a new connection takes the place of the address's "
          + "oldest stranger's (no call with a valid token on it), else it is closed at accept "
          + "(`playline_grpc_connections_refused_total{server=\"api\", reason=\"address\"}`)");
  public static final Setting<Integer> MAX_RST_FRAMES = Setting.intValue("api.max.rst.frames.per.window", 10_000, 1,
      1_000_000, "`RST_STREAM` frames one internal API connection may send or be sent per `grpc.rst.window` "
          + "(HTTP/2 rapid reset): more gets `GOAWAY ENHANCE_YOUR_CALM` and the connection is closed "
          + "(`playline_grpc_connections_cut_total{server=\"api\", reason=\"rapid_reset\"}`). Higher than the "
          + "player port's `grpc.max.rst.frames.per.window`: a backend multiplexes its calls on few connections and "
          + "every call cancelled or past its deadline is a reset (1 000 a second on one connection stays below it), "
          + "while a rapid reset is held to that many calls a second, each refused by the service-token check "
          + "before any work");

  public static final Setting<Boolean> HTTP_ENABLED = Setting.bool("api.http.enabled", true,
      "serve the History API over HTTP/1.1 too, as the Connect protocol (`POST /playline.v1.History/<Method>`, JSON "
          + "or binary; [api](api.md#http-and-json-the-connect-protocol)), on `api.http.port` with the same credentials");
  public static final Setting<Integer> HTTP_PORT = Setting.intValue("api.http.port",
      derived("9095; any free port (0) when `api.port` is 0"), 0, 65_535,
      "the internal API's HTTP (Connect) port; 0 = any free port");
  public static final Setting<Integer> HTTP_MAX_CONNECTIONS = Setting.intValue("api.http.max.connections", 1024, 1,
      1_000_000, "open connections on the API's HTTP port; more are closed at accept "
          + "(`playline_api_http_refused_total{reason=\"connections\"}`)");
  public static final Setting<Integer> HTTP_MAX_CONNECTIONS_PER_ADDRESS = Setting.intValue(
      "api.http.max.connections.per.address", 256, 1, 1_000_000, "of `api.http.max.connections`, those open from one "
          + "address (a backend host, or a NAT in front of several); more are closed at accept "
          + "(`playline_api_http_refused_total{reason=\"address\"}`)");
  public static final Setting<Duration> HTTP_REQUEST_TIMEOUT = Setting.duration("api.http.request.timeout",
      Duration.ofSeconds(10), Duration.ofMillis(100), Duration.ofMinutes(5), "an HTTP connection to the API must "
          + "deliver a whole request this soon after connecting or after its previous answer, else it is closed "
          + "(`playline_api_http_refused_total{reason=\"timeout\"}`): slowloris and idle keep-alive connections are cut; "
          + "each deadline falls in the last quarter of this");
  public static final Setting<Integer> HTTP_MAX_PIPELINED = Setting.intValue("api.http.max.pipelined", 8, 1, 1024,
      "requests one HTTP connection may send before the answers to the earlier ones (HTTP/1.1 pipelining); one "
          + "more closes the connection (`playline_api_http_refused_total{reason=\"pipelined\"}`)");
  public static final Setting<Duration> HTTP_CALL_TIMEOUT = Setting.duration("api.http.call.timeout",
      Duration.ofSeconds(30), Duration.ofMillis(100), Duration.ofMinutes(10), "the longest a call over the API's HTTP "
          + "port may run: past it the answer is `deadline_exceeded` (a shorter `Connect-Timeout-Ms` from the client wins), "
          + "so a call that never ends cannot hold its connection");

  public static final SettingsCatalogue CATALOGUE = new SettingsCatalogue("Internal API", List.of(SECRET, PORT, BIND_HOST,
      MAX_CONNECTIONS, MAX_CONNECTIONS_PER_ADDRESS, MAX_RST_FRAMES, HTTP_ENABLED, HTTP_PORT, HTTP_MAX_CONNECTIONS,
      HTTP_MAX_CONNECTIONS_PER_ADDRESS, HTTP_REQUEST_TIMEOUT,
      HTTP_MAX_PIPELINED, HTTP_CALL_TIMEOUT));

  private ApiSettings() {}
}
