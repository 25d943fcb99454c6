package io.playline.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SslHandler;
import io.playline.core.config.ConfigException;
import io.playline.proto.v1.Error.Code;
import io.playline.proto.v1.ServerFrame;
import io.playline.testing.Frames;
import io.playline.testing.GrpcPlayerClient;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import io.playline.testing.TestCertificates.Issued;
import io.playline.testing.TestCertificates;
import io.playline.testing.WsPlayerClient;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLEngine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * TLS on the player listeners: wss and gRPC over TLS with a CA-issued certificate (OpenSSL and
 * the JDK), plain text refused on them, and a certificate replaced on disk served to new
 * connections while an open one keeps working; a connection closed with an error gets its last
 * frames and the node's close_notify.
 */
@ExtendWith(RealRedisExtension.class)
class TlsTest {
  private static Map<String, String> tls(Issued server, String provider) {
    return Map.of("tls.cert", server.certFile().toString(), "tls.key", server.keyFile().toString(),
        "tls.provider", provider, "tls.reload.interval", "200ms");
  }

  private static void authenticateAndHeartbeat(WsPlayerClient c, long uid) throws Exception {
    c.send(Frames.auth(1, TestGateway.token(uid)));
    assertThat(c.next().getAuthOk().getUid()).isEqualTo(uid);
    heartbeat(c, 2);
  }

  private static void heartbeat(WsPlayerClient c, long seq) throws Exception {
    c.send(Frames.keepAlive(seq));
    ServerFrame ack = c.next();
    assertThat(ack.getSeq()).isEqualTo(seq);
    assertThat(ack.hasHeartbeatAck()).as("%s", ack).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"openssl", "jdk"})
  void playersConnectOverWssAndGrpcTlsAndPlainTextIsRefused(String provider, RedisNamespace ns, @TempDir Path dir)
      throws Exception {
    Issued ca = TestCertificates.authority(dir, "playline-test-ca");
    Issued server = TestCertificates.server(dir, "gateway", ca);
    try (TestGateway gateway = new TestGateway(ns, tls(server, provider))) {
      assertThat(gateway.node.tls()).isNotNull();
      assertThat(gateway.node.tls().providerName()).startsWith(provider.equals("jdk") ? "JDK" : "OpenSSL");
      try (WsPlayerClient c = WsPlayerClient.connectTls(gateway.server.wsAddress().getPort(),
          TestCertificates.trusting(ca))) {
        authenticateAndHeartbeat(c, 9_001);
      }
      try (GrpcPlayerClient g = GrpcPlayerClient.connectTls(gateway.server.grpcAddress().getPort(), ca.certFile(), null)) {
        g.send(Frames.auth(1, TestGateway.token(9_002)));
        assertThat(g.next().getAuthOk().getUid()).isEqualTo(9_002);
      }
      // A plain-text client gets no upgrade from a TLS port.
      assertThatThrownBy(() -> WsPlayerClient.connect(gateway.server.wsAddress().getPort()))
          .isInstanceOf(CompletionException.class);
      // Nor does a client that trusts another CA.
      Issued stranger = TestCertificates.authority(dir.resolve("other"), "another-ca");
      assertThatThrownBy(() -> WsPlayerClient.connectTls(gateway.server.wsAddress().getPort(),
          TestCertificates.trusting(stranger))).isInstanceOf(CompletionException.class);
    }
  }

  @Test
  void aReplacedCertificateServesNewConnectionsWhileOpenOnesKeepWorking(RedisNamespace ns, @TempDir Path dir)
      throws Exception {
    Issued oldCa = TestCertificates.authority(dir.resolve("old"), "old-ca");
    Issued newCa = TestCertificates.authority(dir.resolve("new"), "new-ca");
    Issued served = TestCertificates.server(dir.resolve("served"), "gateway", oldCa);
    Issued renewed = TestCertificates.server(dir.resolve("renewed"), "gateway", newCa);
    try (TestGateway gateway = new TestGateway(ns, tls(served, "auto"));
        WsPlayerClient open = WsPlayerClient.connectTls(gateway.server.wsAddress().getPort(),
            TestCertificates.trusting(oldCa))) {
      authenticateAndHeartbeat(open, 9_003);
      TestCertificates.replace(served, renewed);
      // New handshakes present the renewed certificate: a client trusting only the new CA gets in.
      await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> {
        try (WsPlayerClient c = WsPlayerClient.connectTls(gateway.server.wsAddress().getPort(),
            TestCertificates.trusting(newCa))) {
          authenticateAndHeartbeat(c, 9_004);
          return true;
        }
      });
      assertThat(gateway.counter("playline.tls.reloads", "result", "ok")).isEqualTo(1);
      // The connection made with the old certificate was not dropped.
      heartbeat(open, 3);
      assertThat(open.closed).isNotDone();
      try (GrpcPlayerClient g = GrpcPlayerClient.connectTls(gateway.server.grpcAddress().getPort(), newCa.certFile(),
          null)) {
        g.send(Frames.auth(1, TestGateway.token(9_005)));
        assertThat(g.next().getAuthOk().getUid()).isEqualTo(9_005);
      }
      // A half-written file is not loaded: the renewed certificate stays.
      Files.writeString(served.keyFile(), "-----BEGIN PRIVATE KEY-----\nnot a key\n");
      await().atMost(Duration.ofSeconds(10))
          .until(() -> gateway.counter("playline.tls.reloads", "result", "failed") >= 1);
      try (WsPlayerClient c = WsPlayerClient.connectTls(gateway.server.wsAddress().getPort(),
          TestCertificates.trusting(newCa))) {
        authenticateAndHeartbeat(c, 9_006);
      }
    }
  }

  @Test
  void aCertificateWithoutItsKeyOrAnUnreadableFileStopsTheNodeWithTheKeyNamed(RedisNamespace ns, @TempDir Path dir) {
    Issued ca = TestCertificates.authority(dir, "ca");
    Issued server = TestCertificates.server(dir, "gateway", ca);
    assertThatThrownBy(() -> new TestGateway(ns, Map.of("tls.cert", server.certFile().toString())))
        .isInstanceOf(ConfigException.class).hasMessageContaining("tls.cert is set without the other");
    assertThatThrownBy(() -> new TestGateway(ns, Map.of("tls.cert", server.certFile().toString(),
        "tls.key", dir.resolve("missing.key").toString())))
        .isInstanceOf(ConfigException.class).hasMessageContaining("tls.key: ");
    assertThatThrownBy(() -> new TestGateway(ns, Map.of("tls.cert", server.certFile().toString(),
        "tls.key", ca.keyFile().toString())))
        .isInstanceOf(ConfigException.class).hasMessageContaining("cannot");
  }

  @Test
  void aWssClientClosedWithAnErrorReadsItsFramesThenCloseNotify(RedisNamespace ns, @TempDir Path dir)
      throws Exception {
    Issued ca = TestCertificates.authority(dir, "playline-test-ca");
    Issued server = TestCertificates.server(dir, "gateway", ca);
    NioEventLoopGroup group = new NioEventLoopGroup(1);
    try (TestGateway gateway = new TestGateway(ns, tls(server, "auto"))) {
      SSLEngine engine = TestCertificates.trusting(ca).createSSLEngine();
      engine.setUseClientMode(true);
      SslHandler ssl = new SslHandler(engine);
      ByteArrayOutputStream received = new ByteArrayOutputStream();
      Channel channel = new Bootstrap().group(group).channel(NioSocketChannel.class)
          .handler(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
              ch.pipeline().addLast(ssl, new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                  ByteBuf buf = (ByteBuf) msg;
                  synchronized (received) {
                    received.writeBytes(ByteBufUtil.getBytes(buf));
                  }
                  buf.release();
                }
              });
            }
          }).connect("127.0.0.1", gateway.server.wsAddress().getPort()).sync().channel();
      ssl.handshakeFuture().sync();
      channel.writeAndFlush(Unpooled.wrappedBuffer(RawWebSocket.upgradeRequest())).sync();
      await().atMost(Duration.ofSeconds(10)).until(() -> text(received).contains("\r\n\r\n"));
      ByteArrayOutputStream ping = new ByteArrayOutputStream();
      RawWebSocket.writeFrame(ping, 0x89, new byte[] {1}, new byte[4]); // before Auth: refused, 4001
      channel.writeAndFlush(Unpooled.wrappedBuffer(ping.toByteArray())).sync();
      // The node's close_notify, not a bare FIN (a truncation the client cannot tell from an attack).
      await().atMost(Duration.ofSeconds(10)).until(() -> ssl.sslCloseFuture().isDone());
      assertThat(ssl.sslCloseFuture().isSuccess()).as("close_notify received").isTrue();
      byte[] all;
      synchronized (received) {
        all = received.toByteArray();
      }
      int at = text(received).indexOf("\r\n\r\n") + 4;
      int lastOpcode = -1;
      int closeCode = -1;
      while (at < all.length) {
        int opcode = all[at] & 0x0f;
        int length = all[at + 1] & 0x7f;
        int header = 2;
        if (length == 126) {
          length = ((all[at + 2] & 0xff) << 8) | (all[at + 3] & 0xff);
          header = 4;
        }
        if (opcode == 0x8) {
          closeCode = ((all[at + header] & 0xff) << 8) | (all[at + header + 1] & 0xff);
        }
        lastOpcode = opcode;
        at += header + length;
      }
      assertThat(lastOpcode).isEqualTo(0x8);
      assertThat(closeCode).isEqualTo(4000 + Code.UNAUTHENTICATED.getNumber());
      channel.closeFuture().await(10, TimeUnit.SECONDS);
    } finally {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
  }

  private static String text(ByteArrayOutputStream received) {
    synchronized (received) {
      return received.toString(StandardCharsets.ISO_8859_1);
    }
  }
}
