package io.playline.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/** The role commands as {@code bin/playline} runs them: a role without backend addresses refuses to start. */
class RoleCommandsTest {

  @Test
  void aRoleWithoutBackendAddressesExitsNamingEachOne() {
    StringWriter err = new StringWriter();
    // Empty values count as unset, whatever the machine's environment says.
    int code = PlaylineCli.run(new PrintWriter(new StringWriter()), new PrintWriter(err, true), "job",
        "--set", "redis.uri=", "--set", "kafka.bootstrap.servers=", "--set", "hbase.zookeeper.quorum=");
    assertThat(code).isEqualTo(PlaylineCli.EXIT_RUNTIME);
    assertThat(err.toString()).contains("the job role needs the address of every backend", "redis.uri is not set",
        "PLAYLINE_REDIS_URI", "kafka.bootstrap.servers is not set", "hbase.zookeeper.quorum is not set");
  }
}
