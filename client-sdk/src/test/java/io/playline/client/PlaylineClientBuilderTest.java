package io.playline.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.channel.DefaultEventLoopGroup;
import io.playline.proto.lite.v1.Business;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Settings are checked where they are given, and every message names the setting. */
class PlaylineClientBuilderTest {
  private static PlaylineClientBuilder valid() {
    return PlaylineClient.builder()
        .endpoint("127.0.0.1", 1) // nothing listens: the client keeps retrying in the background
        .tokenSupplier(() -> CompletableFuture.completedFuture("t"))
        .deviceId("phone");
  }

  @Test
  void missingOrBadSettingsAreNamed() {
    assertThatThrownBy(() -> PlaylineClient.builder().deviceId("d")
        .tokenSupplier(() -> CompletableFuture.completedFuture("t")).build()).hasMessageStartingWith("endpoint");
    assertThatThrownBy(() -> PlaylineClient.builder().endpoint("h", 1).deviceId("d").build())
        .hasMessageStartingWith("tokenSupplier");
    assertThatThrownBy(() -> PlaylineClient.builder().endpoint("", 80)).hasMessageStartingWith("endpoint host");
    assertThatThrownBy(() -> PlaylineClient.builder().endpoint("h", 70_000)).hasMessageStartingWith("endpoint port");
    assertThatThrownBy(() -> PlaylineClient.builder().deviceId("")).hasMessageStartingWith("deviceId");
    // The gateway's default limits, in UTF-8 bytes: a longer label would be refused at auth.
    PlaylineClient.builder().deviceId("\u00e9".repeat(32)).platform("p".repeat(32));
    assertThatThrownBy(() -> PlaylineClient.builder().deviceId("\u00e9".repeat(32) + "x"))
        .hasMessageStartingWith("deviceId").hasMessageContaining("1..64 UTF-8 bytes");
    assertThatThrownBy(() -> PlaylineClient.builder().platform("\u00e9".repeat(17)))
        .hasMessageStartingWith("platform").hasMessageContaining("at most 32 UTF-8 bytes");
    assertThatThrownBy(() -> PlaylineClient.builder().backoff(Duration.ZERO, Duration.ofSeconds(1), 3))
        .hasMessageStartingWith("backoffBase");
    assertThatThrownBy(() -> PlaylineClient.builder().backoff(Duration.ofSeconds(2), Duration.ofSeconds(1), 3))
        .hasMessageStartingWith("backoffCap");
    assertThatThrownBy(() -> PlaylineClient.builder().backoff(Duration.ofSeconds(1), Duration.ofSeconds(1), 0))
        .hasMessageStartingWith("maxAttempts");
    assertThatThrownBy(() -> PlaylineClient.builder().maxUnackedEvents(0)).hasMessageStartingWith("maxUnackedEvents");
    assertThatThrownBy(() -> PlaylineClient.builder().requestTimeout(Duration.ZERO))
        .hasMessageStartingWith("requestTimeout");
    DefaultEventLoopGroup notNio = new DefaultEventLoopGroup(1);
    try {
      assertThatThrownBy(() -> valid().eventLoopGroup(notNio).build()).hasMessageStartingWith("eventLoopGroup");
    } finally {
      notNio.shutdownGracefully(0, 0, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }
  }

  @Test
  void reportsAndQueriesAreCheckedAtTheCall() {
    PlaylineClient client = valid().closeTimeout(Duration.ofMillis(200)).build();
    try {
      assertThatThrownBy(() -> client.report(Business.BUSINESS_UNSPECIFIED, 1, 0, 0))
          .hasMessageStartingWith("business");
      assertThatThrownBy(() -> client.report(Business.VIDEO, 0, 0, 0)).hasMessageStartingWith("oid");
      assertThatThrownBy(() -> client.report(Business.VIDEO, 1, -1, 0, 0)).hasMessageStartingWith("subId");
      assertThatThrownBy(() -> client.report(Business.VIDEO, 1, -2, 0)).hasMessageStartingWith("progressMs");
      assertThatThrownBy(() -> client.report(Business.VIDEO, 1, 0, -1)).hasMessageStartingWith("durationMs");
      assertThatThrownBy(() -> client.history(List.of(), null, 101)).hasMessageStartingWith("limit");
      client.report(Business.VIDEO, 1, -1, 0); // finished, unknown length: fine
      assertThat(client.state()).isIn(ConnectionState.CONNECTING, ConnectionState.RECONNECTING);
      client.close();
      assertThat(client.state()).isEqualTo(ConnectionState.CLOSED);
      assertThatThrownBy(() -> client.report(Business.VIDEO, 1, 0, 0)).isInstanceOf(IllegalStateException.class);
      assertThat(client.flush()).isCompletedExceptionally();
    } finally {
      client.close(); // idempotent
    }
  }
}
