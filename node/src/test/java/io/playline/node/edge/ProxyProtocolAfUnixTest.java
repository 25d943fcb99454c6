package io.playline.node.edge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.util.ReferenceCountUtil;
import io.playline.node.loops.EventLoops;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A PROXY v2 header whose addresses are {@code AF_UNIX} paths, on a real loopback socket into a port
 * that installs {@link ProxyProtocolHandler} as the WebSocket port does: the connection keeps the
 * balancer's (the socket's) address, and the path is never resolved as a host name; a v2 TCP4 header
 * on the same port names its own source, so the test tells the two apart.
 */
class ProxyProtocolAfUnixTest {
  private static final byte[] V2_SIGNATURE = {0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A};
  private static final int UNIX_PATH_BYTES = 108;

  static EventLoops loops;
  static Channel server;
  /** The client address each connection had at its first byte after the header, by the socket's remote port. */
  static final Map<Integer, InetSocketAddress> seen = new ConcurrentHashMap<>();

  @BeforeAll
  static void start() throws InterruptedException {
    loops = EventLoops.create(1);
    server = new ServerBootstrap()
        .group(loops.boss(), loops.workers())
        .channel(loops.serverChannelType())
        .childHandler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            ProxyProtocolHandler.install(ch);
            ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
              @Override
              public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ReferenceCountUtil.release(msg);
                InetSocketAddress peer = (InetSocketAddress) ctx.channel().remoteAddress();
                InetSocketAddress client = ProxyProtocolHandler.clientAddress(ctx.channel());
                if (client != null) {
                  seen.putIfAbsent(peer.getPort(), client);
                }
              }
            });
          }
        })
        .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
        .sync()
        .channel();
  }

  @AfterAll
  static void stop() {
    server.close().awaitUninterruptibly();
    loops.close();
  }

  /** A v2 PROXY header for a STREAM connection between two {@code AF_UNIX} paths (108 bytes each, NUL-padded). */
  private static byte[] v2Unix(String source, String destination) {
    ByteBuffer b = ByteBuffer.allocate(16 + 2 * UNIX_PATH_BYTES);
    b.put(V2_SIGNATURE);
    b.put((byte) 0x21).put((byte) 0x31).putShort((short) (2 * UNIX_PATH_BYTES)); // v2 PROXY, AF_UNIX STREAM, 216
    b.put(Arrays.copyOf(source.getBytes(StandardCharsets.US_ASCII), UNIX_PATH_BYTES));
    b.put(Arrays.copyOf(destination.getBytes(StandardCharsets.US_ASCII), UNIX_PATH_BYTES));
    return b.array();
  }

  private static byte[] v2Tcp4(byte[] source, int sourcePort) {
    ByteBuffer b = ByteBuffer.allocate(16 + 12);
    b.put(V2_SIGNATURE);
    b.put((byte) 0x21).put((byte) 0x11).putShort((short) 12); // v2 PROXY, TCP over IPv4, 12 address bytes
    b.put(source).put(new byte[] {127, 0, 0, 1}).putShort((short) sourcePort).putShort((short) 8080);
    return b.array();
  }

  /** Connects from loopback, sends {@code header} and one byte, and returns the address the port saw. */
  private static InetSocketAddress clientAddressAfter(byte[] header, Socket socket) throws Exception {
    socket.connect(server.localAddress());
    socket.getOutputStream().write(header);
    socket.getOutputStream().write('x');
    socket.getOutputStream().flush();
    await().atMost(Duration.ofSeconds(10)).until(() -> seen.containsKey(socket.getLocalPort()));
    return seen.get(socket.getLocalPort());
  }

  @Test
  void anAfUnixSourceKeepsTheBalancersSocketAddressAndIsNotResolved() throws Exception {
    // "localhost" is a legal relative socket path and a host name: looked up, it would become 127.0.0.1:0.
    try (Socket balancer = new Socket()) {
      InetSocketAddress client = clientAddressAfter(v2Unix("localhost", "/run/playline.sock"), balancer);
      assertThat(client).isEqualTo(balancer.getLocalSocketAddress());
      assertThat(client.isUnresolved()).isFalse();
      assertThat(client.getAddress().getHostAddress()).isEqualTo("127.0.0.1");
    }
  }

  @Test
  void aTcp4SourceOnTheSamePortReplacesTheSocketAddress() throws Exception {
    try (Socket balancer = new Socket()) {
      InetSocketAddress client = clientAddressAfter(v2Tcp4(new byte[] {(byte) 198, 51, 100, 9}, 40_000), balancer);
      assertThat(client).isEqualTo(new InetSocketAddress(InetAddress.getByAddress(new byte[] {(byte) 198, 51, 100, 9}),
          40_000));
      assertThat(client).isNotEqualTo(balancer.getLocalSocketAddress());
    }
  }
}
