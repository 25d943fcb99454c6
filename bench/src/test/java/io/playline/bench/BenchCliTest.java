package io.playline.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class BenchCliTest {
  private static final List<String> OWN = List.of("-Xms256m", "-Xmx2g", "-XX:+UseParallelGC",
      "--add-opens", "java.base/java.nio=ALL-UNNAMED", "-Dplayline.log.dir=/d/logs");

  @Test
  void spawnedGatewaysTakeTheGatewayHeapAndCollectorButKeepEverythingElse() {
    assertThat(BenchCli.gatewayJvmArgs(OWN, " -Xms128m  -Xmx1g -Xmn64m -XX:+UseSerialGC "))
        .containsExactly("--add-opens", "java.base/java.nio=ALL-UNNAMED", "-Dplayline.log.dir=/d/logs",
            "-Xms128m", "-Xmx1g", "-Xmn64m", "-XX:+UseSerialGC");
  }

  @Test
  void withoutGatewayOptionsTheBenchsOwnFlagsAreUsed() {
    assertThat(BenchCli.gatewayJvmArgs(OWN, null)).isEqualTo(OWN);
    assertThat(BenchCli.gatewayJvmArgs(OWN, "  ")).isEqualTo(OWN);
  }
}
