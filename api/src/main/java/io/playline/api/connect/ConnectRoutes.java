package io.playline.api.connect;

import com.google.protobuf.DescriptorProtos.MethodOptions.IdempotencyLevel;
import com.google.protobuf.Message;
import io.grpc.MethodDescriptor;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import io.grpc.protobuf.ProtoMethodDescriptorSupplier;
import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The unary methods of some service definitions by their Connect path ({@code /pkg.Service/Method}),
 * each with its request's prototype and whether it may be sent as {@code GET} (its proto says
 * {@code idempotency_level = NO_SIDE_EFFECTS}). Immutable.
 */
final class ConnectRoutes {
  /** One method: how to call it and how to read its request. */
  record Route(ServerMethodDefinition<Object, Object> definition, Message requestPrototype, boolean get) {
    String name() {
      return definition.getMethodDescriptor().getBareMethodName();
    }
  }

  private final Map<String, Route> byPath = new HashMap<>();

  /** The unary protobuf methods of {@code services} (streaming ones are left out: Connect unary only). */
  @SuppressWarnings("unchecked")
  ConnectRoutes(ServerServiceDefinition... services) {
    for (ServerServiceDefinition service : services) {
      for (ServerMethodDefinition<?, ?> m : service.getMethods()) {
        MethodDescriptor<?, ?> method = m.getMethodDescriptor();
        if (method.getType() != MethodDescriptor.MethodType.UNARY
            || !(method.getRequestMarshaller() instanceof MethodDescriptor.PrototypeMarshaller<?> request)
            || !(request.getMessagePrototype() instanceof Message prototype)) {
          continue;
        }
        boolean get = method.getSchemaDescriptor() instanceof ProtoMethodDescriptorSupplier schema
            && schema.getMethodDescriptor().getOptions().getIdempotencyLevel() == IdempotencyLevel.NO_SIDE_EFFECTS;
        byPath.put("/" + method.getFullMethodName(), new Route((ServerMethodDefinition<Object, Object>) m, prototype, get));
      }
    }
  }

  @Nullable Route route(String path) {
    return byPath.get(path);
  }
}
