package io.playline.gateway.grpc;

import io.grpc.Status;
import io.playline.proto.v1.Error;

/** The one place that maps Playline error codes to gRPC statuses (see the {@code Error.Code} docs). */
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
    return status.withDescription(error.getCode().name() + ": " + error.getMessage());
  }
}
