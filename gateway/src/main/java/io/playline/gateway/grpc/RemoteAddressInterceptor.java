package io.playline.gateway.grpc;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.netty.channel.Channel;
import io.playline.node.grpc.Http2ConnectionGuard;
import java.net.SocketAddress;

/**
 * Puts the caller's socket address (for per-address limits and logs) and its connection's channel
 * (for {@link io.playline.node.edge.Probation}) into the gRPC {@link Context}.
 */
final class RemoteAddressInterceptor implements ServerInterceptor {
  static final Context.Key<SocketAddress> REMOTE_ADDRESS = Context.key("playline-remote-address");
  static final Context.Key<Channel> CONNECTION = Context.key("playline-connection");

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
      ServerCallHandler<Q, R> next) {
    SocketAddress address = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
    Channel connection = call.getAttributes().get(Http2ConnectionGuard.CHANNEL);
    if (address == null && connection == null) {
      return next.startCall(call, headers);
    }
    Context context = Context.current();
    if (address != null) {
      context = context.withValue(REMOTE_ADDRESS, address);
    }
    if (connection != null) {
      context = context.withValue(CONNECTION, connection);
    }
    return Contexts.interceptCall(context, call, headers, next);
  }
}
