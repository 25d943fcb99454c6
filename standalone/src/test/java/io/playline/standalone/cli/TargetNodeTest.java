package io.playline.standalone.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.playline.core.config.ConfigSource;
import io.playline.roles.endpoints.Endpoints;
import io.playline.standalone.cli.TargetNode.Address;
import io.playline.standalone.cli.TargetNode.Port;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which node the operator commands talk to: option, variable, configured port, endpoints.json, default. */
class TargetNodeTest {
  private static final long PID = 4242;

  @TempDir Path dataDir;

  /** A standalone on the data dir whose endpoints.json names ports 48080, 48090, 48091, 48100. */
  private void runningStandalone() throws Exception {
    new Endpoints(PID, null, "2026-01-01T00:00:00Z", null, null, null, null,
        Endpoints.Serves.of(Map.of("websocket", "ws://127.0.0.1:48080/v1/stream", "grpc", "127.0.0.1:48090",
            "api", "127.0.0.1:48091", "admin", "http://127.0.0.1:48100")), null)
        .write(dataDir.resolve(Endpoints.FILE_NAME));
  }

  private TargetNode target(Map<String, String> env, Map<String, String> set, boolean writerAlive) {
    Map<String, String> overrides = new HashMap<>(set);
    overrides.put("data.dir", dataDir.toString());
    ConfigSource config = ConfigSource.load(null, env, new Properties(), overrides);
    return TargetNode.of(config, env, pid -> writerAlive && pid == PID);
  }

  private TargetNode target(Map<String, String> env, Map<String, String> set) {
    return target(env, set, true);
  }

  @Test
  void theRunningStandalonesEndpointsFileBeatsTheDefaults() throws Exception {
    runningStandalone();
    TargetNode target = target(Map.of(), Map.of());
    String file = dataDir.resolve(Endpoints.FILE_NAME).toString();
    assertThat(target.address(Port.WEBSOCKET, null)).isEqualTo(new Address("127.0.0.1:48080", file + ", pid 4242"));
    assertThat(target.address(Port.GRPC, null).value()).isEqualTo("127.0.0.1:48090");
    assertThat(target.address(Port.API, null).value()).isEqualTo("127.0.0.1:48091");
    assertThat(target.address(Port.ADMIN, null).value()).isEqualTo("http://127.0.0.1:48100");
    assertThat(target.address(Port.API, null).describe(Port.API))
        .isEqualTo("playline: the internal API at 127.0.0.1:48091 (" + file + ", pid 4242)");
  }

  @Test
  void withoutARunningStandaloneTheDefaultPortsAndWhy() throws Exception {
    assertThat(target(Map.of(), Map.of()).address(Port.API, null).value()).isEqualTo("127.0.0.1:9091");
    runningStandalone();
    Address stale = target(Map.of(), Map.of(), false).address(Port.WEBSOCKET, null);
    assertThat(stale.value()).as("the file of a process that is gone").isEqualTo("127.0.0.1:8080");
    assertThat(stale.source()).contains("the default").contains(dataDir.toString());
    assertThat(target(Map.of(), Map.of()).address(Port.GRPC, null).value()).isEqualTo("127.0.0.1:48090");
    assertThat(target(Map.of(), Map.of(), false).address(Port.GRPC, null).value()).isEqualTo("127.0.0.1:9090");
    assertThat(target(Map.of(), Map.of(), false).address(Port.ADMIN, null).value()).isEqualTo("http://127.0.0.1:9100");
  }

  @Test
  void aConfiguredPortBeatsTheEndpointsFileUnlessItIsAnyFreePort() throws Exception {
    runningStandalone();
    Address set = target(Map.of(), Map.of("ws.port", "18080")).address(Port.WEBSOCKET, null);
    assertThat(set).isEqualTo(new Address("127.0.0.1:18080", "ws.port from command line"));
    assertThat(target(Map.of("PLAYLINE_API_PORT", "18091"), Map.of()).address(Port.API, null))
        .isEqualTo(new Address("127.0.0.1:18091", "api.port from env PLAYLINE_API_PORT"));
    assertThat(target(Map.of(), Map.of("admin.port", "0")).address(Port.ADMIN, null).value())
        .isEqualTo("http://127.0.0.1:48100");
    // On the node's bind host when that is one address; loopback for a wildcard.
    assertThat(target(Map.of(), Map.of("api.port", "18091", "api.bind.host", "10.1.2.3")).address(Port.API, null)
        .value()).isEqualTo("10.1.2.3:18091");
    assertThat(target(Map.of(), Map.of("admin.port", "18100", "bind.host", "0.0.0.0")).address(Port.ADMIN, null)
        .value()).isEqualTo("http://127.0.0.1:18100");
  }

  @Test
  void theVariableBeatsTheConfigAndTheOptionBeatsAll() throws Exception {
    runningStandalone();
    Map<String, String> env = Map.of("PLAYLINE_GATEWAY_ADDRESS", "10.0.0.1:8080", "PLAYLINE_ADMIN_URL",
        "http://10.0.0.1:9100", "PLAYLINE_API_ADDRESS", "10.0.0.1:9091");
    TargetNode target = target(env, Map.of("ws.port", "18080", "api.port", "18091"));
    assertThat(target.address(Port.WEBSOCKET, null)).isEqualTo(new Address("10.0.0.1:8080", "PLAYLINE_GATEWAY_ADDRESS"));
    assertThat(target.address(Port.API, null).value()).isEqualTo("10.0.0.1:9091");
    assertThat(target.address(Port.ADMIN, null).value()).isEqualTo("http://10.0.0.1:9100");
    assertThat(target.address(Port.API, "10.9.9.9:1")).isEqualTo(new Address("10.9.9.9:1", "--api"));
    assertThat(target.address(Port.GRPC, "10.9.9.9:2")).isEqualTo(new Address("10.9.9.9:2", "--gateway"));
  }
}
