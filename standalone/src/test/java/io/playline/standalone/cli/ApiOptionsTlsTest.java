package io.playline.standalone.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.netty.handler.ssl.ClientAuth;
import io.playline.testing.TestCertificates;
import io.playline.testing.TestCertificates.Issued;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The CLI's --tls-ca, --tls-cert and --tls-key against a real gRPC server that requires a client certificate. */
class ApiOptionsTlsTest {
  private static final PrintWriter NOWHERE = new PrintWriter(new StringWriter());

  @Test
  void theCliCallsAnMtlsApiWithItsClientCertificateAndIsRefusedWithoutOne(@TempDir Path dir) throws Exception {
    Issued ca = TestCertificates.authority(dir, "ca");
    Issued server = TestCertificates.server(dir, "api", ca);
    Issued clientCa = TestCertificates.authority(dir.resolve("clients"), "client-ca");
    Issued cli = TestCertificates.client(dir.resolve("clients"), "ops-cli", clientCa);
    HealthStatusManager health = new HealthStatusManager();
    Server api = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .sslContext(GrpcSslContexts.forServer(server.certFile().toFile(), server.keyFile().toFile())
            .trustManager(clientCa.certFile().toFile()).clientAuth(ClientAuth.REQUIRE).build())
        .addService(health.getHealthService()).build().start();
    try {
      ApiOptions options = new ApiOptions();
      options.apiOption = "localhost:" + api.getPort();
      options.tlsCa = ca.certFile().toString();
      options.tlsCert = cli.certFile().toString();
      options.tlsKey = cli.keyFile().toString();
      assertThat(check(options)).isEqualTo(ServingStatus.SERVING);

      options.tlsCert = null;
      options.tlsKey = null;
      assertThatThrownBy(() -> check(options)).isInstanceOf(StatusRuntimeException.class)
          .satisfies(e -> assertThat(((StatusRuntimeException) e).getStatus().getCode())
              .isIn(io.grpc.Status.Code.UNAVAILABLE, io.grpc.Status.Code.UNKNOWN)); // TLS 1.3: maybe on the first read
      options.tlsCa = null;
      options.tls = false;
      assertThatThrownBy(() -> check(options)).isInstanceOf(StatusRuntimeException.class)
          .satisfies(e -> assertThat(((StatusRuntimeException) e).getStatus().getCode())
              .isIn(io.grpc.Status.Code.UNAVAILABLE, io.grpc.Status.Code.UNKNOWN)); // plain text to a TLS port
      options.tlsCert = cli.certFile().toString();
      assertThatThrownBy(() -> options.channel(NOWHERE)).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("--tls-cert and --tls-key");
    } finally {
      api.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  private static ServingStatus check(ApiOptions options) throws InterruptedException {
    ManagedChannel channel = options.channel(NOWHERE);
    try {
      return HealthGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS)
          .check(HealthCheckRequest.getDefaultInstance()).getStatus();
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }
}
