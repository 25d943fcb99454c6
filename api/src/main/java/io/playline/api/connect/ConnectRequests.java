package io.playline.api.connect;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import io.grpc.Metadata;
import io.grpc.Status;
import io.netty.handler.codec.http.FullHttpRequest;
import io.playline.api.connect.ConnectRoutes.Route;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Reading a Connect request: the codec its {@code Content-Type} (POST) or {@code encoding} (GET)
 * names, the message of a GET's query, the message itself (JSON by the proto3 mapping, unknown
 * fields ignored as Connect servers do but unknown enum values refused ({@link StrictJson}), or
 * binary), {@code Connect-Timeout-Ms}, and the headers a gRPC call would carry. What the protocol
 * refuses is thrown as {@link Refused} with its status. Stateless.
 */
final class ConnectRequests {
  static final String JSON = "application/json";
  static final String PROTO = "application/proto";
  private static final JsonFormat.Parser PARSER = JsonFormat.parser().ignoringUnknownFields();
  /** Longest Connect-Timeout-Ms the protocol allows: 10 digits. */
  private static final int MAX_TIMEOUT_DIGITS = 10;

  private ConnectRequests() {}

  /** A request the protocol refuses, with the status to answer. */
  static final class Refused extends Exception {
    static final long serialVersionUID = 1L;

    final transient Status status;

    Refused(Status status) {
      super(status.getDescription(), null, false, false);
      this.status = status;
    }
  }

  static @Nullable String postCodec(@Nullable String contentType) {
    if (contentType == null) {
      return null;
    }
    int semicolon = contentType.indexOf(';');
    String type = (semicolon < 0 ? contentType : contentType.substring(0, semicolon)).trim();
    return type.equalsIgnoreCase(JSON) ? JSON : type.equalsIgnoreCase(PROTO) ? PROTO : null;
  }

  static String getCodec(Map<String, List<String>> query) throws Refused {
    String encoding = first(query, "encoding");
    if ("json".equals(encoding)) {
      return JSON;
    }
    if ("proto".equals(encoding)) {
      return PROTO;
    }
    throw new Refused(Status.INVALID_ARGUMENT.withDescription("GET needs encoding=json or encoding=proto"));
  }

  static byte[] getBody(Map<String, List<String>> query) throws Refused {
    String compression = first(query, "compression");
    if (compression != null && !compression.equals("identity")) {
      throw new Refused(Status.UNIMPLEMENTED.withDescription("compression " + compression + " is not supported"));
    }
    String message = first(query, "message");
    if (message == null) {
      return new byte[0];
    }
    if (!"1".equals(first(query, "base64"))) {
      return message.getBytes(StandardCharsets.UTF_8);
    }
    try {
      return Base64.getUrlDecoder().decode(message.replace('+', '-').replace('/', '_').replace("=", ""));
    } catch (IllegalArgumentException e) {
      throw new Refused(Status.INVALID_ARGUMENT.withDescription("message: not base64url (expected with base64=1)"));
    }
  }

  static @Nullable String first(Map<String, List<String>> query, String name) {
    List<String> values = query.get(name);
    return values == null || values.isEmpty() ? null : values.get(0);
  }

  /**
   * The request message {@code body} holds. A refusal says what is wrong in the client's terms (the
   * field and the rule); never the parser's text, which names library classes, JSON paths and
   * links.
   */
  static Message decode(Route route, String codec, byte[] body) throws Refused {
    Message prototype = route.requestPrototype();
    String type = prototype.getDescriptorForType().getFullName();
    try {
      if (codec.equals(PROTO)) {
        return prototype.getParserForType().parseFrom(body);
      }
      Message.Builder builder = prototype.newBuilderForType();
      if (body.length > 0) {
        String json = new String(body, StandardCharsets.UTF_8);
        StrictJson.check(json, prototype.getDescriptorForType());
        PARSER.merge(json, builder);
      }
      return builder.build();
    } catch (StrictJson.Problem e) {
      throw new Refused(Status.INVALID_ARGUMENT.withDescription(e.getMessage()));
    } catch (InvalidProtocolBufferException | RuntimeException e) {
      throw new Refused(Status.INVALID_ARGUMENT.withDescription(codec.equals(PROTO)
          ? "the body is not a binary " + type
          : "the body is not a " + type + " in the proto3 JSON mapping"));
    }
  }

  /** Connect-Timeout-Ms: null when absent, -1 when malformed. */
  static @Nullable Long timeoutMs(@Nullable String header) {
    if (header == null) {
      return null;
    }
    if (header.isEmpty() || header.length() > MAX_TIMEOUT_DIGITS || !header.chars().allMatch(Character::isDigit)) {
      return -1L;
    }
    return Long.parseLong(header);
  }

  /** The request's headers a gRPC call would carry (text ones; HTTP's own are left out). */
  static Metadata metadata(FullHttpRequest request) {
    Metadata metadata = new Metadata();
    for (Map.Entry<String, String> h : request.headers()) {
      String key = h.getKey().toLowerCase(Locale.ROOT);
      if (key.endsWith(Metadata.BINARY_HEADER_SUFFIX) || key.equals("host") || key.equals("connection")
          || key.startsWith("content-") || key.equals("transfer-encoding")) {
        continue;
      }
      try {
        metadata.put(Metadata.Key.of(key, Metadata.ASCII_STRING_MARSHALLER), h.getValue());
      } catch (IllegalArgumentException e) {
        // not a valid gRPC header name: a gRPC client could not have sent it either
      }
    }
    return metadata;
  }
}
