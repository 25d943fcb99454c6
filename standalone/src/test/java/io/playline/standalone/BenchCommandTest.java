package io.playline.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class BenchCommandTest {
  private static final List<String> OWN = List.of("-Xms256m", "-Xmx2g", "-XX:+UseParallelGC",
      "--add-opens", "java.base/java.nio=ALL-UNNAMED", "-Dplayline.log.dir=/d/logs");

  @Test
  void spawnedGatewaysTakeTheGatewayHeapAndCollectorButKeepEverythingElse() {
    assertThat(BenchCommand.gatewayJvmArgs(OWN, " -Xms128m  -Xmx1g -Xmn64m -XX:+UseSerialGC "))
        .containsExactly("--add-opens", "java.base/java.nio=ALL-UNNAMED", "-Dplayline.log.dir=/d/logs",
            "-Xms128m", "-Xmx1g", "-Xmn64m", "-XX:+UseSerialGC");
  }

  @Test
  void withoutGatewayOptionsTheBenchsOwnFlagsAreUsed() {
    assertThat(BenchCommand.gatewayJvmArgs(OWN, null)).isEqualTo(OWN);
    assertThat(BenchCommand.gatewayJvmArgs(OWN, "  ")).isEqualTo(OWN);
  }
}
