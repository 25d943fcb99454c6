package io.playline.gateway.ws;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.haproxy.HAProxyCommand;
import io.netty.handler.codec.haproxy.HAProxyMessage;
import io.netty.handler.codec.haproxy.HAProxyMessageDecoder;
import io.netty.util.AttributeKey;
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
 * {@code LOCAL} header (the balancer's own health check) keeps the socket's address. Removes itself
 * (and the decoder) after the header. One per connection.
 */
public final class ProxyProtocolHandler extends ChannelInboundHandlerAdapter {
  private static final Logger log = LoggerFactory.getLogger(ProxyProtocolHandler.class);
  private static final AttributeKey<InetSocketAddress> CLIENT = AttributeKey.valueOf("playline.client.address");

  /** Adds the decoder and this handler at the front of {@code channel}'s pipeline. */
  static void install(Channel channel) {
    channel.pipeline().addFirst(new ProxyProtocolHandler()).addFirst(new HAProxyMessageDecoder());
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
      ctx.channel().attr(CLIENT).set(source);
    }
    ctx.pipeline().remove(this);
  }

  /**
   * The player's address a PROXY header names, or null ({@code LOCAL}, or an unusable address);
   * releases the header.
   */
  public static @Nullable InetSocketAddress source(Channel channel, HAProxyMessage header) {
    try {
      if (header.command() == HAProxyCommand.PROXY && header.sourceAddress() != null) {
        return new InetSocketAddress(InetAddress.getByName(header.sourceAddress()), header.sourcePort());
      }
      return null;
    } catch (UnknownHostException e) {
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
