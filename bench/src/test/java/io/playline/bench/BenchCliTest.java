package io.playline.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

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

  @Test
  void gatewayJavaOptsIsAnOptionDefaultingToTheGatewayRolesEnvironment() {
    BenchCli cli = new BenchCli();
    CommandLine line = new CommandLine(cli);
    line.parseArgs("--gateway-java-opts", "-Xmx2g -XX:+UseSerialGC");
    assertThat(cli.gatewayJavaOpts).isEqualTo("-Xmx2g -XX:+UseSerialGC");
    assertThat(line.getUsageMessage()).contains("--gateway-java-opts=FLAGS");
    // Uninterpolated, the default names the variable bin/playline exports (the test JVM has none).
    line.getCommandSpec().interpolateVariables(false);
    assertThat(line.getCommandSpec().findOption("--gateway-java-opts").defaultValue())
        .isEqualTo("${env:PLAYLINE_GATEWAY_JAVA_OPTS}");
  }
}
