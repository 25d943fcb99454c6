package io.playline.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.playline.proto.v1.GetPausedRequest;
import io.playline.proto.v1.HistoryGrpc;
import io.playline.testing.HBaseNamespace;
import io.playline.testing.KafkaNamespace;
import io.playline.testing.RealHBaseExtension;
import io.playline.testing.RealKafkaExtension;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import io.playline.testing.TestCertificates;
import io.playline.testing.TestCertificates.Issued;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The internal API over TLS: with {@code tls.cert}/{@code tls.key} it needs TLS and a service
 * token; with {@code api.tls.client.ca} as well, a client certificate from that CA is the
 * credential, and a client without one (or with another CA's) does not get in. The same holds on
 * the HTTP (Connect) port, called with curl.
 */
@ExtendWith({RealRedisExtension.class, RealKafkaExtension.class, RealHBaseExtension.class})
class ApiTlsTest {
  static final String API_SECRET = TestApi.API_SECRET;

  private static TestApi start(RedisNamespace redis, KafkaNamespace kafka, HBaseNamespace hbase,
      Map<String, String> tls) {
    return TestApi.start(redis, kafka, hbase, tls);
  }

  /** GetPaused over TLS to localhost, trusting {@code ca}, with {@code client} and/or a service token. */
  private static boolean call(TestApi api, Issued ca, @Nullable Issued client, boolean token) throws Exception {
    NettyChannelBuilder b = NettyChannelBuilder.forAddress("localhost", api.api().address().getPort())
        .sslContext(TestCertificates.grpcClientContext(ca.certFile(), client));
    if (token) {
      Metadata headers = new Metadata();
      headers.put(ServiceAuthInterceptor.AUTHORIZATION, "Bearer " + ServiceTokens.mint(API_SECRET, "api-tls-test",
          Duration.ofMinutes(5), Instant.now()));
      b.intercept(MetadataUtils.newAttachHeadersInterceptor(headers));
    }
    ManagedChannel channel = b.build();
    try {
      HistoryGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS)
          .getPaused(GetPausedRequest.newBuilder().setUid(42).build());
      return true;
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  @Test
  void overTlsTheApiStillNeedsAServiceToken(RedisNamespace redis, KafkaNamespace kafka, HBaseNamespace hbase,
      @TempDir Path dir) throws Exception {
    Issued ca = TestCertificates.authority(dir, "ca");
    Issued server = TestCertificates.server(dir, "api", ca);
    try (TestApi api = start(redis, kafka, hbase, Map.of("tls.cert", server.certFile().toString(),
        "tls.key", server.keyFile().toString()))) {
      assertThat(call(api, ca, null, true)).isTrue();
      String url = "https://localhost:" + api.api().httpAddress().getPort() + "/playline.v1.History/GetPaused";
      assertThat(Curl.run("--cacert", ca.certFile().toString(), "-H", "Authorization: " + TestApi.bearer(), "-H",
          "Content-Type: application/json", "-d", "{\"uid\":\"42\"}", url).status()).isEqualTo(200);
      assertThat(Curl.run("--cacert", ca.certFile().toString(), "-H", "Content-Type: application/json", "-d",
          "{\"uid\":\"42\"}", url).status()).isEqualTo(401);
      assertThatThrownBy(() -> call(api, ca, null, false)).isInstanceOf(StatusRuntimeException.class)
          .extracting(e -> ((StatusRuntimeException) e).getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
      // A client certificate is no credential where the API does not ask for one.
      Issued client = TestCertificates.client(dir, "billing", ca);
      assertThatThrownBy(() -> call(api, ca, client, false)).isInstanceOf(StatusRuntimeException.class)
          .extracting(e -> ((StatusRuntimeException) e).getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
    }
  }

  @Test
  void withAClientCaACertificateFromItIsTheCredentialAndNoOneElseGetsIn(RedisNamespace redis, KafkaNamespace kafka,
      HBaseNamespace hbase, @TempDir Path dir) throws Exception {
    Issued ca = TestCertificates.authority(dir, "server-ca");
    Issued server = TestCertificates.server(dir, "api", ca);
    Issued clientCa = TestCertificates.authority(dir.resolve("clients"), "client-ca");
    Issued billing = TestCertificates.client(dir.resolve("clients"), "billing", clientCa);
    Issued stranger = TestCertificates.client(dir.resolve("strangers"), "stranger",
        TestCertificates.authority(dir.resolve("strangers"), "stranger-ca"));
    try (TestApi api = start(redis, kafka, hbase, Map.of("tls.cert", server.certFile().toString(),
        "tls.key", server.keyFile().toString(), "api.tls.client.ca", clientCa.certFile().toString()))) {
      assertThat(call(api, ca, billing, false)).isTrue();
      // The HTTP (Connect) port asks for the same certificate: curl with it gets in without a token.
      String url = "https://localhost:" + api.api().httpAddress().getPort() + "/playline.v1.History/GetPaused";
      Curl.Answer withCertificate = Curl.run("--cacert", ca.certFile().toString(), "--cert",
          billing.certFile().toString(), "--key", billing.keyFile().toString(), "-H", "Content-Type: application/json",
          "-d", "{\"uid\":\"42\"}", url);
      assertThat(withCertificate.status()).isEqualTo(200);
      assertThatThrownBy(() -> Curl.run("--cacert", ca.certFile().toString(), "-H", "Authorization: "
          + TestApi.bearer(), "-H", "Content-Type: application/json", "-d", "{}", url))
          .as("no client certificate: refused in the handshake").hasMessageStartingWith("curl exited");
      assertThatThrownBy(() -> call(api, ca, null, true)).isInstanceOf(StatusRuntimeException.class)
          .extracting(e -> ((StatusRuntimeException) e).getStatus().getCode())
          .isIn(Status.Code.UNAVAILABLE, Status.Code.UNKNOWN); // refused in the handshake, or on the first read (TLS 1.3)
      assertThatThrownBy(() -> call(api, ca, stranger, true)).isInstanceOf(StatusRuntimeException.class)
          .extracting(e -> ((StatusRuntimeException) e).getStatus().getCode())
          .isIn(Status.Code.UNAVAILABLE, Status.Code.UNKNOWN); // refused in the handshake, or on the first read (TLS 1.3)
    }
  }
}
