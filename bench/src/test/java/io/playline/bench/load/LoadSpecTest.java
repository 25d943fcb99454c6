package io.playline.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.time.ZoneId;
import java.util.List;
import org.junit.jupiter.api.Test;

class LoadSpecTest {
  @Test
  void aChildGetsTheSameSpecQueryIncluded() {
    LoadSpec spec = new LoadSpec("ws", List.of(URI.create("ws://127.0.0.1:8080/v1/stream")), 10, 20, 5000, 2, "s",
        1_000, LoadSpec.FlagMode.TODAY, ZoneId.of("UTC"), 0, 1, 100, 1, 0, 0, LoadSpec.Query.PAGE);
    assertThat(LoadSpec.fromArgs(spec.toArgs(), "s")).isEqualTo(spec);
    // Heartbeat players by default, also when an older parent sends no query.
    LoadSpec heartbeats = new LoadSpec("ws", spec.targets(), 0, 1, 5000, 2, "s", 1, LoadSpec.FlagMode.NONE,
        ZoneId.of("UTC"), 1, 4, 100, 1, 0, 0);
    List<String> args = heartbeats.toArgs().stream().filter(a -> !a.startsWith("query=")).toList();
    assertThat(LoadSpec.fromArgs(args, "s").query()).isEqualTo(LoadSpec.Query.NONE);
  }
}
