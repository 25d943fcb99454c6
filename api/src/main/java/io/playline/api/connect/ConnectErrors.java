package io.playline.api.connect;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonObject;
import io.grpc.Status;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * The Connect protocol's errors: a gRPC status's code by its Connect name ({@code invalid_argument},
 * {@code canceled}, ...), the HTTP status each is sent with, and the JSON body {@code {"code",
 * "message"}}. Stateless.
 */
final class ConnectErrors {
  /** Only JSON's own escapes, so a message reads as written ({@code >} stays {@code >}). */
  private static final Gson GSON = new GsonBuilder().disableHtmlEscaping().create();
  private ConnectErrors() {}

  /** The Connect name of {@code code}: gRPC's name in lower case, {@code CANCELLED} spelt {@code canceled}. */
  static String name(Status.Code code) {
    return code == Status.Code.CANCELLED ? "canceled" : code.name().toLowerCase(Locale.ROOT);
  }

  /** The HTTP status a Connect error with {@code code} is sent with (the protocol's table). */
  static HttpResponseStatus httpStatus(Status.Code code) {
    return switch (code) {
      case CANCELLED -> new HttpResponseStatus(499, "Client Closed Request");
      case INVALID_ARGUMENT, FAILED_PRECONDITION, OUT_OF_RANGE -> HttpResponseStatus.BAD_REQUEST;
      case DEADLINE_EXCEEDED -> HttpResponseStatus.GATEWAY_TIMEOUT;
      case NOT_FOUND -> HttpResponseStatus.NOT_FOUND;
      case ALREADY_EXISTS, ABORTED -> HttpResponseStatus.CONFLICT;
      case PERMISSION_DENIED -> HttpResponseStatus.FORBIDDEN;
      case RESOURCE_EXHAUSTED -> HttpResponseStatus.TOO_MANY_REQUESTS;
      case UNIMPLEMENTED -> HttpResponseStatus.NOT_IMPLEMENTED;
      case UNAVAILABLE -> HttpResponseStatus.SERVICE_UNAVAILABLE;
      case UNAUTHENTICATED -> HttpResponseStatus.UNAUTHORIZED;
      default -> HttpResponseStatus.INTERNAL_SERVER_ERROR; // UNKNOWN, INTERNAL, DATA_LOSS
    };
  }

  /** The error body for {@code status}: its code and, when it has one, its description. */
  static byte[] body(Status status) {
    JsonObject error = new JsonObject();
    error.addProperty("code", name(status.getCode()));
    if (status.getDescription() != null) {
      error.addProperty("message", status.getDescription());
    }
    return GSON.toJson(error).getBytes(StandardCharsets.UTF_8);
  }
}
