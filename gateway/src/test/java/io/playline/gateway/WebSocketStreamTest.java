package io.playline.gateway;

import static io.playline.testing.Frames.auth;
import static org.assertj.core.api.Assertions.assertThat;

import io.playline.proto.v1.Error.Code;
import io.playline.proto.v1.ServerFrame;
import io.playline.testing.Frames;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import io.playline.testing.WsPlayerClient;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(RealRedisExtension.class)
class WebSocketStreamTest {
  static TestGateway gateway;

  @BeforeAll
  static void start(RedisNamespace ns) {
    gateway = new TestGateway(ns, Map.of());
  }

  @AfterAll
  static void stop() {
    gateway.close();
  }

  private static WsPlayerClient connect() {
    return WsPlayerClient.connect(gateway.server.wsAddress().getPort());
  }

  private static void assertClosedWith(WsPlayerClient client, Code code) throws Exception {
    ServerFrame error = client.next();
    assertThat(error.getError().getCode()).isEqualTo(code);
    assertThat(error.getError().getMessage()).isNotBlank();
    assertThat(client.awaitClose().code()).isEqualTo(4000 + code.getNumber());
  }

  @Test
  void validTokenGetsAuthOkWithUidAndSession() throws Exception {
    double checksBefore = gateway.counter("playline.auth.identity.checks");
    try (WsPlayerClient client = connect()) {
      client.send(auth(7, TestGateway.token(42)));
      ServerFrame ok = client.next();
      assertThat(ok.getSeq()).isEqualTo(7);
      assertThat(ok.getAuthOk().getUid()).isEqualTo(42);
      assertThat(ok.getAuthOk().getSessionId()).isNotEmpty();
      assertThat(ok.getAuthOk().getHeartbeatIntervalMs()).isEqualTo(15_000);
      assertThat(ok.getAuthOk().getServerTimeMs()).isPositive();
    }
    assertThat(gateway.counter("playline.auth.identity.checks") - checksBefore).isEqualTo(1);
  }

  @Test
  void frameBeforeAuthIsRejectedAndClosed() throws Exception {
    try (WsPlayerClient client = connect()) {
      client.send(Frames.keepAlive(1));
      assertClosedWith(client, Code.UNAUTHENTICATED);
    }
  }

  @Test
  void badTokenIsRejectedAndClosed() throws Exception {
    try (WsPlayerClient client = connect()) {
      client.send(auth(1, TestGateway.token(42) + "x"));
      assertClosedWith(client, Code.UNAUTHENTICATED);
    }
  }

  @Test
  void tokenSignedWithAnotherSecretIsRejected() throws Exception {
    String forged = io.playline.gateway.session.JwtTokens.mint("another-secret-another-secret-another!", 42,
        java.time.Duration.ofHours(1), java.time.Instant.now());
    try (WsPlayerClient client = connect()) {
      client.send(auth(1, forged));
      assertClosedWith(client, Code.UNAUTHENTICATED);
    }
  }

  @Test
  void deviceIdAndPlatformAreBoundedInBytesAtAuth() throws Exception {
    // device.id.max.bytes 64 and platform.max.bytes 32 (defaults): at the limit is fine, in UTF-8 bytes.
    String device64 = "\u00e9".repeat(32);
    try (WsPlayerClient client = connect()) {
      client.send(auth(1, TestGateway.token(42), device64, "p".repeat(32)));
      assertThat(client.next().hasAuthOk()).isTrue();
    }
    try (WsPlayerClient client = connect()) {
      client.send(auth(1, TestGateway.token(42), device64 + "x"));
      ServerFrame error = client.next();
      assertThat(error.getError().getMessage()).isEqualTo("device_id: 65 bytes (expected: at most 64)");
      assertClosedWith(error, client, Code.INVALID_ARGUMENT);
    }
    try (WsPlayerClient client = connect()) {
      client.send(auth(1, TestGateway.token(42), "tv", "p".repeat(1_000)));
      ServerFrame error = client.next();
      assertThat(error.getError().getMessage()).isEqualTo("platform: 1000 bytes (expected: at most 32)");
      assertClosedWith(error, client, Code.INVALID_ARGUMENT);
    }
  }

  private static void assertClosedWith(ServerFrame error, WsPlayerClient client, Code code) throws Exception {
    assertThat(error.getError().getCode()).isEqualTo(code);
    assertThat(client.awaitClose().code()).isEqualTo(4000 + code.getNumber());
  }

  @Test
  void textFrameIsRejectedAndClosed() throws Exception {
    try (WsPlayerClient client = connect()) {
      client.sendText("{\"auth\":{}}");
      assertClosedWith(client, Code.UNSUPPORTED_FRAME);
    }
  }

  @Test
  void malformedProtobufIsRejectedAndClosed() throws Exception {
    try (WsPlayerClient client = connect()) {
      client.sendBytes(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, 0x01, 0x02});
      assertClosedWith(client, Code.PROTOCOL_VIOLATION);
    }
  }

  @Test
  void oversizedFrameIsRejectedAndClosed() throws Exception {
    try (WsPlayerClient client = connect()) {
      client.sendBytes(new byte[gateway.config.maxFrameBytes() + 1]);
      assertClosedWith(client, Code.FRAME_TOO_LARGE);
    }
  }

  @Test
  void silentClientIsClosedAfterAuthTimeout() throws Exception {
    try (WsPlayerClient client = connect()) {
      assertClosedWith(client, Code.AUTH_TIMEOUT);
    }
  }

  @Test
  void secondAuthIsAProtocolViolation() throws Exception {
    try (WsPlayerClient client = connect()) {
      client.send(auth(1, TestGateway.token(42)));
      assertThat(client.next().hasAuthOk()).isTrue();
      client.send(auth(2, TestGateway.token(42)));
      ServerFrame error = client.next();
      assertThat(error.getSeq()).isEqualTo(2);
      assertThat(error.getError().getCode()).isEqualTo(Code.PROTOCOL_VIOLATION);
      assertThat(client.awaitClose().code()).isEqualTo(4000 + Code.PROTOCOL_VIOLATION.getNumber());
    }
  }

  @Test
  void serverKeepsServingOthersAfterBadInput() throws Exception {
    try (WsPlayerClient bad = connect()) {
      bad.sendBytes(new byte[] {(byte) 0xff, 0x00});
      bad.awaitClose();
    }
    try (WsPlayerClient good = connect()) {
      good.send(auth(1, TestGateway.token(7)));
      assertThat(good.next().getAuthOk().getUid()).isEqualTo(7);
    }
  }
}
