package io.playline.gateway.grpc;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import java.net.SocketAddress;

/** Puts the caller's socket address into the gRPC {@link Context} for per-address limits and logs. */
final class RemoteAddressInterceptor implements ServerInterceptor {
  static final Context.Key<SocketAddress> REMOTE_ADDRESS = Context.key("playline-remote-address");

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
      ServerCallHandler<Q, R> next) {
    SocketAddress address = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
    if (address == null) {
      return next.startCall(call, headers);
    }
    return Contexts.interceptCall(Context.current().withValue(REMOTE_ADDRESS, address), call, headers, next);
  }
}
