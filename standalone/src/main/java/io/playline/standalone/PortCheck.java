package io.playline.standalone;

import io.playline.roles.StartupException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.LinkedHashMap;
import java.util.Map;

/** Fails start-up with the key to change when a configured port is taken, before anything starts. */
final class PortCheck {
  private PortCheck() {}

  /** {@code ports} maps a config key (e.g. {@code ws.port}) to its port; 0 means any and is skipped. */
  static void ensureFree(String host, Map<String, Integer> ports) {
    Map<String, Integer> taken = new LinkedHashMap<>();
    for (Map.Entry<String, Integer> e : ports.entrySet()) {
      if (e.getValue() == 0) {
        continue;
      }
      try (ServerSocket socket = new ServerSocket()) {
        socket.setReuseAddress(true);
        socket.bind(new InetSocketAddress(host, e.getValue()));
      } catch (IOException ex) {
        taken.put(e.getKey(), e.getValue());
      }
    }
    if (!taken.isEmpty()) {
      StringBuilder msg = new StringBuilder("ports already in use:");
      taken.forEach((key, port) -> msg.append(' ').append(port).append(" (").append(key).append(", set ")
          .append(io.playline.core.config.ConfigSource.envName(key)).append(')'));
      msg.append(" — is another Playline running?");
      throw new StartupException(msg.toString());
    }
  }
}
