package io.playline.node.errors;

import io.grpc.Status;
import io.playline.proto.v1.Error;

/**
 * The one place that maps Playline error codes to gRPC statuses (see the {@code Error.Code} docs): the
 * description is the error's message, after the Playline code when that differs from the gRPC one.
 */
public final class StatusMapper {
  private StatusMapper() {}

  public static Status toStatus(Error error) {
    Status status = switch (error.getCode()) {
      case UNAUTHENTICATED, SESSION_EXPIRED, TOKEN_EXPIRED -> Status.UNAUTHENTICATED;
      case INVALID_ARGUMENT, PROTOCOL_VIOLATION, UNSUPPORTED_FRAME -> Status.INVALID_ARGUMENT;
      case RATE_LIMITED, TOO_MANY_CONNECTIONS, FRAME_TOO_LARGE, SLOW_CONSUMER -> Status.RESOURCE_EXHAUSTED;
      case UNAVAILABLE, DRAINING -> Status.UNAVAILABLE;
      case AUTH_TIMEOUT, IDLE_TIMEOUT -> Status.DEADLINE_EXCEEDED;
      case INTERNAL, CODE_UNSPECIFIED, UNRECOGNIZED -> Status.INTERNAL;
    };
    // The Playline code leads the description only where it says more than the gRPC code does
    // (SLOW_CONSUMER under RESOURCE_EXHAUSTED); "INVALID_ARGUMENT: INVALID_ARGUMENT: ..." says nothing twice.
    String code = error.getCode().name();
    return status.withDescription(code.equals(status.getCode().name()) ? error.getMessage() : code + ": " + error.getMessage());
  }
}
