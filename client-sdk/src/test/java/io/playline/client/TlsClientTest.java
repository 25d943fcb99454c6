package io.playline.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.playline.proto.lite.v1.Business;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import io.playline.testing.TestCertificates;
import io.playline.testing.TestCertificates.Issued;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The SDK over wss and gRPC-over-TLS to a gateway with a CA-issued certificate. */
@ExtendWith(RealRedisExtension.class)
class TlsClientTest {
  @ParameterizedTest
  @EnumSource(Wire.class)
  void theClientTrustingTheGatewaysCaReportsOverTls(Wire transport, RedisNamespace ns, @TempDir Path dir)
      throws Exception {
    Issued ca = TestCertificates.authority(dir, "ca");
    Issued server = TestCertificates.server(dir, "gateway", ca);
    long uid = transport.ordinal() + 851;
    Recorder events = new Recorder();
    try (GatewayFixture gateway = new GatewayFixture(ns, "tls.cert", server.certFile().toString(),
        "tls.key", server.keyFile().toString());
        AbstractPlaylineClient client = gateway.client(transport, uid, "tv").trustCertificates(ca.certFile())
            .listener(events).build()) {
      events.awaitCount(ConnectionState.CONNECTED, 1);
      client.report(Business.VIDEO, 1, 5_000, 600_000);
      client.flush().get(10, TimeUnit.SECONDS);
      assertThat(gateway.stored(uid, Business.VIDEO, 1).getProgressMs()).isEqualTo(5_000);
    }
  }

  @ParameterizedTest
  @EnumSource(Wire.class)
  void aGatewayWhoseCertificateTheClientDoesNotTrustIsNeverConnected(Wire transport, RedisNamespace ns,
      @TempDir Path dir) throws Exception {
    Issued ca = TestCertificates.authority(dir, "ca");
    Issued server = TestCertificates.server(dir, "gateway", ca);
    Issued other = TestCertificates.authority(dir.resolve("other"), "other-ca");
    try (GatewayFixture gateway = new GatewayFixture(ns, "tls.cert", server.certFile().toString(),
        "tls.key", server.keyFile().toString())) {
      refused(gateway, transport, other);
    }
  }

  @ParameterizedTest
  @EnumSource(Wire.class)
  void aCertificateForAnotherHostIsRefused(Wire transport, RedisNamespace ns, @TempDir Path dir)
      throws Exception {
    Issued ca = TestCertificates.authority(dir, "ca");
    Issued elsewhere = TestCertificates.serverNamed(dir, "gateway", ca, "elsewhere.example");
    try (GatewayFixture gateway = new GatewayFixture(ns, "tls.cert", elsewhere.certFile().toString(),
        "tls.key", elsewhere.keyFile().toString())) {
      refused(gateway, transport, ca);
    }
  }

  /** A client trusting {@code ca} fails every handshake and gives up, never connected. */
  private static void refused(GatewayFixture gateway, Wire transport, Issued ca) throws Exception {
    Recorder events = new Recorder();
    try (AbstractPlaylineClient client = gateway.client(transport, 853, "tv").trustCertificates(ca.certFile())
            .backoff(Duration.ofMillis(50), Duration.ofMillis(100), 3).listener(events).build()) {
      // Every attempt fails in the handshake; after three the client gives up.
      await().atMost(Duration.ofSeconds(30)).until(() -> client.state() == ConnectionState.CLOSED);
      assertThat(events.states).noneMatch(s -> s.state() == ConnectionState.CONNECTED);
      assertThat(client.stats().connections()).isZero();
    }
  }

  @Test
  void aTrustFileThatIsNoCertificateIsRefusedWhenTheClientIsBuilt(@TempDir Path dir) throws Exception {
    Path bogus = Files.writeString(dir.resolve("ca.pem"), "not a certificate");
    assertThatThrownBy(() -> PlaylineClient.builder().endpoint("127.0.0.1", 1).tokenSupplier(
        () -> java.util.concurrent.CompletableFuture.completedFuture("t")).deviceId("d").trustCertificates(bogus).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("trustCertificates: " + bogus);
    assertThatThrownBy(() -> PlaylineClient.builder().trustCertificates(dir.resolve("missing.pem")).endpoint("h", 1)
        .tokenSupplier(() -> java.util.concurrent.CompletableFuture.completedFuture("t")).deviceId("d").build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("missing.pem");
  }
}
