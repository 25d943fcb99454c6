package io.playline.node.grpc;

import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import io.grpc.ServiceDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A service whose request messages that cannot be read are answered with the status they deserve,
 * not gRPC's {@code UNKNOWN}: grpc-java parses a request in the application's call and, when the
 * parse throws (a gzip message that inflates past {@code frame.max.bytes}, bytes that are no
 * protobuf of the request type), closes the call {@code UNKNOWN "Application error processing RPC"}
 * and logs the exception with its stack trace, once per message: any client could fill the log.
 * Here each method's request marshaller catches the parse's failure and hands the call a {@link
 * Parsed} that says why, and the call is closed {@code RESOURCE_EXHAUSTED} (over the size limit)
 * or {@code INVALID_ARGUMENT} (undecodable), with a client-safe message, before the service sees
 * it; counted and logged by {@link ClientErrorLog}. What the service receives is unchanged. Unary
 * methods only: a streaming method reads its messages itself (the player stream does).
 */
public final class RequestParsing {
  private RequestParsing() {}

  /** A request message off the wire: its value, or why it could not be read (then {@code value} is null). */
  record Parsed(@Nullable Object value, @Nullable Status refused) {}

  /** {@code service} with every method's requests parsed as above. */
  public static ServerServiceDefinition wrap(ServerServiceDefinition service) {
    ServiceDescriptor original = service.getServiceDescriptor();
    ServiceDescriptor.Builder descriptor = ServiceDescriptor.newBuilder(original.getName())
        .setSchemaDescriptor(original.getSchemaDescriptor());
    List<ServerMethodDefinition<?, ?>> methods = new ArrayList<>();
    for (ServerMethodDefinition<?, ?> method : service.getMethods()) {
      // Unary calls only: a streaming call's refusal must come from the thread that owns its stream.
      ServerMethodDefinition<?, ?> wrapped = method.getMethodDescriptor().getType() == MethodDescriptor.MethodType.UNARY
          ? wrap(method) : method;
      methods.add(wrapped);
      descriptor.addMethod(wrapped.getMethodDescriptor());
    }
    ServerServiceDefinition.Builder builder = ServerServiceDefinition.builder(descriptor.build());
    methods.forEach(builder::addMethod);
    return builder.build();
  }

  private static <Q, R> ServerMethodDefinition<Parsed, R> wrap(ServerMethodDefinition<Q, R> method) {
    MethodDescriptor<Q, R> original = method.getMethodDescriptor();
    MethodDescriptor.Marshaller<Q> requests = original.getRequestMarshaller();
    String type = original.getFullMethodName();
    MethodDescriptor<Parsed, R> descriptor = original.toBuilder(new MethodDescriptor.Marshaller<Parsed>() {
      @Override
      @SuppressWarnings("unchecked") // only this class makes a Parsed, always of Q
      public InputStream stream(Parsed value) {
        return requests.stream((Q) value.value());
      }

      @Override
      public Parsed parse(InputStream stream) {
        try {
          return new Parsed(requests.parse(stream), null);
        } catch (StatusRuntimeException e) {
          Status refused = refusal(e.getStatus(), type);
          ClientErrorLog.parseFailed(refused.getCode() == Status.Code.RESOURCE_EXHAUSTED
              ? ClientErrorLog.Kind.TOO_LARGE : ClientErrorLog.Kind.UNDECODABLE, e.getStatus().getDescription());
          return new Parsed(null, refused);
        }
      }
    }, original.getResponseMarshaller()).build();
    ServerCallHandler<Q, R> handler = method.getServerCallHandler();
    return ServerMethodDefinition.create(descriptor, (call, headers) -> listener(call, headers, handler));
  }

  /** The client-safe answer to a request the parse refused with {@code status}. */
  static Status refusal(Status status, String method) {
    if (status.getCode() == Status.Code.RESOURCE_EXHAUSTED) {
      return Status.RESOURCE_EXHAUSTED.withDescription("request message larger than the limit (frame.max.bytes) "
          + "once decompressed");
    }
    return Status.INVALID_ARGUMENT.withDescription("the request message could not be decoded (not a protobuf "
        + "request of " + method + ", or its compression is corrupt)");
  }

  private static <Q, R> ServerCall.Listener<Parsed> listener(ServerCall<Parsed, R> call, Metadata headers,
      ServerCallHandler<Q, R> handler) {
    @SuppressWarnings({"unchecked", "rawtypes"}) // the call's messages reach the service as Q (below)
    ServerCall<Q, R> asService = (ServerCall) call;
    ServerCall.Listener<Q> service = handler.startCall(asService, headers);
    return new ServerCall.Listener<>() {
      private boolean refused;

      @Override
      @SuppressWarnings("unchecked") // a Parsed without a refusal holds a Q
      public void onMessage(Parsed message) {
        if (refused) {
          return;
        }
        if (message.refused() != null) {
          refused = true;
          call.close(message.refused(), new Metadata());
          return;
        }
        service.onMessage((Q) message.value());
      }

      @Override
      public void onHalfClose() {
        if (!refused) {
          service.onHalfClose();
        }
      }

      @Override
      public void onCancel() {
        service.onCancel();
      }

      @Override
      public void onComplete() {
        service.onComplete();
      }

      @Override
      public void onReady() {
        service.onReady();
      }
    };
  }
}
