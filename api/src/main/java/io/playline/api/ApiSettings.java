package io.playline.api;

import static io.playline.core.config.Setting.derived;

import io.playline.core.config.Setting;
import io.playline.core.config.SettingsCatalogue;
import java.util.List;
import java.util.Optional;

/** Who may call the internal API and where it listens ({@link ApiAccess}); its port and mTLS are the gateway's keys. */
public final class ApiSettings {
  public static final Setting<Optional<String>> SECRET = Setting.secret("api.secret",
      "dev key (standalone only); required (api role)", "every internal API call but health needs a service token "
          + "signed with it (`bin/playline token --service NAME`)")
      .rangeNote("≥ 32 bytes, HS256, not `auth.secret`'s key");
  public static final Setting<String> BIND_HOST = Setting.string("api.bind.host", derived("`bind.host`"),
      "address the internal API binds: keep it on an internal interface");
  public static final Setting<Integer> MAX_CONNECTIONS = Setting.intValue("api.max.connections", 4_096, 1,
      10_000_000, "TCP connections open on the internal API port of this node: more are closed at accept, before "
          + "TLS or HTTP/2 (`playline_grpc_connections_refused_total{server=\"api\", reason=\"node\"}`; counted now: "
          + "`playline_grpc_connections{server=\"api\"}`)");
  public static final Setting<Integer> MAX_CONNECTIONS_PER_ADDRESS = Setting.intValue(
      "api.max.connections.per.address", 1_024, 1, 10_000_000, "TCP connections open on the internal API port from "
          + "one address (a backend's channel pool): more are closed at accept "
          + "(`playline_grpc_connections_refused_total{server=\"api\", reason=\"address\"}`)");

  public static final SettingsCatalogue CATALOGUE = new SettingsCatalogue("Internal API", List.of(SECRET, BIND_HOST,
      MAX_CONNECTIONS, MAX_CONNECTIONS_PER_ADDRESS));

  private ApiSettings() {}
}
