package io.playline.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.playline.embedded.EmbeddedRedis;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StaleServersTest {
  private static boolean listening(int port) {
    try {
      new Socket("127.0.0.1", port).close();
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  @Test
  void aRedisServerLeftInTheTopologyDirectoryIsKilledAndOthersAreNot(@TempDir Path topology, @TempDir Path elsewhere)
      throws Exception {
    try (EmbeddedRedis left = EmbeddedRedis.start(new EmbeddedRedis.Options(topology.resolve("redis/node-1"), 0, false));
        EmbeddedRedis other = EmbeddedRedis.start(new EmbeddedRedis.Options(elsewhere.resolve("redis"), 0, false))) {
      assertThat(StaleServers.killUnder(topology)).hasSize(1);
      assertThat(listening(left.port())).isFalse();
      assertThat(listening(other.port())).isTrue();
    }
  }
}
