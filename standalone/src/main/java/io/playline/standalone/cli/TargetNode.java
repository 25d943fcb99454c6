package io.playline.standalone.cli;

import io.playline.api.config.ApiSettings;
import io.playline.core.config.ConfigSource;
import io.playline.core.config.Setting;
import io.playline.gateway.config.GatewaySettings;
import io.playline.node.settings.NodeSettings;
import io.playline.roles.RoleSettings;
import io.playline.roles.endpoints.Endpoints;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.LongPredicate;
import org.jspecify.annotations.Nullable;

/**
 * Which node an operator command ({@code play}, {@code status}, {@code history}) talks to, and
 * why. For each port the first of these that names it wins:
 *
 * <ol>
 *   <li>the command's address option ({@code --gateway}, {@code --api}, {@code --admin});
 *   <li>its environment variable ({@code PLAYLINE_GATEWAY_ADDRESS}, {@code PLAYLINE_API_ADDRESS},
 *       {@code PLAYLINE_ADMIN_URL});
 *   <li>the port's key in the command's configuration ({@code --set ws.port=…}, {@code --config},
 *       {@code PLAYLINE_WS_PORT}; not 0), on its bind host when that is one address, else loopback;
 *   <li>the {@code endpoints.json} a running standalone keeps in its data dir ({@code --data-dir},
 *       {@code PLAYLINE_DATA_DIR}, {@code data.dir}; default {@code ./data}), unless the process
 *       that wrote it is gone;
 *   <li>the default port on 127.0.0.1.
 * </ol>
 *
 * What the command was told beats what it finds, and what it finds beats a guess. Immutable.
 */
final class TargetNode {
  /** A port of a node, with where each step of the order above looks for it. */
  enum Port {
    WEBSOCKET("gateway's WebSocket", "--gateway", "PLAYLINE_GATEWAY_ADDRESS", GatewaySettings.WS_PORT,
        List.of(NodeSettings.BIND_HOST.key()), Endpoints.Serves::websocket, "127.0.0.1:8080"),
    GRPC("gateway's gRPC port", "--gateway", "PLAYLINE_GATEWAY_ADDRESS", GatewaySettings.GRPC_PORT,
        List.of(NodeSettings.BIND_HOST.key()), Endpoints.Serves::grpc, "127.0.0.1:9090"),
    API("internal API", "--api", "PLAYLINE_API_ADDRESS", ApiSettings.PORT,
        List.of(ApiSettings.BIND_HOST.key(), NodeSettings.BIND_HOST.key()), Endpoints.Serves::api, "127.0.0.1:9091"),
    ADMIN("node's admin port", "--admin", "PLAYLINE_ADMIN_URL", NodeSettings.ADMIN_PORT,
        List.of(NodeSettings.ADMIN_BIND_HOST.key(), NodeSettings.BIND_HOST.key()), Endpoints.Serves::admin,
        "http://127.0.0.1:9100");

    final String what;
    final String option;
    final String env;
    private final Setting<Integer> port;
    private final List<String> hostKeys;
    private final Function<Endpoints.Serves, @Nullable String> served;
    private final String fallback;

    Port(String what, String option, String env, Setting<Integer> port, List<String> hostKeys,
        Function<Endpoints.Serves, @Nullable String> served, String fallback) {
      this.what = what;
      this.option = option;
      this.env = env;
      this.port = port;
      this.hostKeys = hostKeys;
      this.served = served;
      this.fallback = fallback;
    }

    /** {@code host:port} as this port's address is written: a URL for the admin port, else bare. */
    private String address(String host, int number) {
      String hostPort = (host.contains(":") ? "[" + host + "]" : host) + ":" + number;
      return this == ADMIN ? "http://" + hostPort : hostPort;
    }

    /** An address from endpoints.json as the command takes it: the WebSocket URL's {@code host:port}. */
    private String fromFile(String value) {
      if (this != WEBSOCKET || !value.contains("://")) {
        return value;
      }
      URI uri = URI.create(value);
      return uri.getHost() + ":" + uri.getPort();
    }
  }

  /**
   * The address a command talks to and where it came from.
   *
   * @param value {@code host:port}, or the admin port's URL
   * @param source why, e.g. {@code --api}, {@code ws.port (command line)}, an endpoints.json's path
   */
  record Address(String value, String source) {
    /** The line a command prints on stderr before it calls. */
    String describe(Port port) {
      return "playline: the " + port.what + " at " + value + " (" + source + ")";
    }
  }

  private final ConfigSource config;
  private final Map<String, String> env;
  private final @Nullable Endpoints endpoints;
  private final String endpointsSource;

  private TargetNode(ConfigSource config, Map<String, String> env, @Nullable Endpoints endpoints,
      String endpointsSource) {
    this.config = config;
    this.env = Map.copyOf(env);
    this.endpoints = endpoints;
    this.endpointsSource = endpointsSource;
  }

  /** The target as this process's environment and {@code config} (the command's layered config) say. */
  static TargetNode of(ConfigSource config) {
    return of(config, System.getenv(), pid -> ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));
  }

  /**
   * The target for {@code config} and {@code env}, reading the data dir's {@code endpoints.json}
   * when {@code alive} says the process that wrote it still runs.
   */
  static TargetNode of(ConfigSource config, Map<String, String> env, LongPredicate alive) {
    Path file = Path.of(RoleSettings.DATA_DIR.read(config)).resolve(Endpoints.FILE_NAME).toAbsolutePath().normalize();
    if (!Files.isRegularFile(file)) {
      return new TargetNode(config, env, null, "");
    }
    try {
      Endpoints found = Endpoints.read(file);
      Long pid = found.pid();
      if (pid != null && !alive.test(pid)) {
        return new TargetNode(config, env, null, "");
      }
      return new TargetNode(config, env, found, file + (pid == null ? "" : ", pid " + pid));
    } catch (IOException e) {
      // Unreadable: as if absent; the command then says which address it took instead.
      return new TargetNode(config, env, null, "");
    }
  }

  /** Where {@code port} is, given the command's address option ({@code null}: not given). */
  Address address(Port port, @Nullable String option) {
    if (option != null && !option.isBlank()) {
      return new Address(option.trim(), port.option);
    }
    String fromEnv = env.get(port.env);
    if (fromEnv != null && !fromEnv.isBlank()) {
      return new Address(fromEnv.trim(), port.env);
    }
    Optional<String> configured = config.raw(port.port.key());
    if (configured.isPresent()) {
      int number = port.port.read(config);
      if (number != 0) {
        String origin = config.describe().getOrDefault(port.port.key(), "config");
        return new Address(port.address(host(port), number), port.port.key() + " from " + origin);
      }
    }
    Endpoints e = endpoints;
    if (e != null) {
      Optional<String> served = e.serves(port.served);
      if (served.isPresent()) {
        return new Address(port.fromFile(served.get()), endpointsSource);
      }
    }
    return new Address(port.fallback, "the default; no running standalone's endpoints.json in "
        + Path.of(RoleSettings.DATA_DIR.read(config)).toAbsolutePath().normalize());
  }

  /** The bind host of {@code port} when it is one address, else loopback. */
  private String host(Port port) {
    for (String key : port.hostKeys) {
      Optional<String> host = config.raw(key).map(String::trim);
      if (host.isPresent()) {
        String h = host.get();
        return h.equals("0.0.0.0") || h.equals("::") || h.equals("[::]") ? "127.0.0.1" : h;
      }
    }
    return "127.0.0.1";
  }
}
