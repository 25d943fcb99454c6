package io.playline.node.edge;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.haproxy.HAProxyCommand;
import io.netty.handler.codec.haproxy.HAProxyMessage;
import io.netty.handler.codec.haproxy.HAProxyMessageDecoder;
import io.netty.util.AttributeKey;
import io.netty.util.NetUtil;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * With {@code proxy.protocol} on, the WebSocket port sits behind a load balancer that starts every
 * connection with a PROXY protocol header (v1 text or v2 binary, told apart by Netty's decoder):
 * the header's source address becomes the connection's {@link #clientAddress client address}, used
 * for {@code connection.max.per.address} and in logs. A connection that does not start with a valid
 * header is closed (the decoder fails it): with the option on, only the balancer may connect. A
 * {@code LOCAL} header (the balancer's own health check) keeps the socket's address, and so does an
 * address that is not an IP literal (v2 {@code AF_UNIX}): nothing is resolved by name on the I/O
 * thread. Only peers in {@code proxy.trusted.cidrs} may connect at all ({@link #admits}): anyone
 * else could claim any address. Removes itself (and the decoder) after the header. One per connection.
 */
public final class ProxyProtocolHandler extends ChannelInboundHandlerAdapter {
  private static final Logger log = LoggerFactory.getLogger(ProxyProtocolHandler.class);
  private static final AttributeKey<InetSocketAddress> CLIENT = AttributeKey.valueOf("playline.client.address");

  /** Adds the decoder and this handler at the front of {@code channel}'s pipeline. */
  public static void install(Channel channel) {
    channel.pipeline().addFirst(new ProxyProtocolHandler()).addFirst(new HAProxyMessageDecoder());
  }

  /**
   * Whether {@code channel}'s peer may send PROXY headers; when not, counts it in {@code refused}
   * and closes the channel (before anything is read).
   */
  public static boolean admits(Channel channel, TrustedProxies trusted, Counter refused) {
    if (trusted.trusts(channel.remoteAddress())) {
      return true;
    }
    refused.increment();
    log.debug("Closing {}: not in proxy.trusted.cidrs ({})", channel.remoteAddress(), trusted);
    channel.close();
    return false;
  }

  /** The counter of connections {@link #admits} refused on {@code port} ({@code ws}, {@code grpc}). */
  public static Counter refusedCounter(MeterRegistry registry, String port) {
    return Counter.builder("playline.proxy.refused").tag("port", port)
        .description("Connections closed at accept on a proxy.protocol port: the peer is not in proxy.trusted.cidrs")
        .register(registry);
  }

  /** Makes {@code source} {@code channel}'s {@link #clientAddress client address}. */
  public static void remember(Channel channel, InetSocketAddress source) {
    channel.attr(CLIENT).set(source);
  }

  /** The client's address: from the PROXY header when there was one, else the socket's peer. */
  public static @Nullable InetSocketAddress clientAddress(Channel channel) {
    InetSocketAddress proxied = channel.attr(CLIENT).get();
    SocketAddress peer = channel.remoteAddress();
    return proxied != null ? proxied : peer instanceof InetSocketAddress isa ? isa : null;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
    if (!(msg instanceof HAProxyMessage header)) {
      super.channelRead(ctx, msg);
      return;
    }
    InetSocketAddress source = source(ctx.channel(), header);
    if (source != null) {
      remember(ctx.channel(), source);
    }
    ctx.pipeline().remove(this);
  }

  /**
   * The player's address a PROXY header names, or null ({@code LOCAL}, or an address that is not an
   * IP literal, such as an {@code AF_UNIX} path: never resolved by name); releases the header.
   */
  public static @Nullable InetSocketAddress source(Channel channel, HAProxyMessage header) {
    try {
      String claimed = header.sourceAddress();
      if (header.command() != HAProxyCommand.PROXY || claimed == null) {
        return null;
      }
      byte[] literal = NetUtil.createByteArrayFromIpAddressString(claimed);
      if (literal == null) {
        log.debug("PROXY header from {} with a source that is no IP address: {}", channel.remoteAddress(), claimed);
        return null;
      }
      return new InetSocketAddress(InetAddress.getByAddress(literal), header.sourcePort());
    } catch (UnknownHostException e) { // not thrown for 4- or 16-byte arrays
      log.debug("PROXY header from {} with an unusable source {}", channel.remoteAddress(), header.sourceAddress());
      return null;
    } finally {
      header.release();
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    log.debug("Closing {}: no valid PROXY protocol header ({})", ctx.channel().remoteAddress(), cause.toString());
    ctx.close();
  }
}
