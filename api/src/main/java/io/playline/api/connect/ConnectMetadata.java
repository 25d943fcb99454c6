package io.playline.api.connect;

import io.grpc.Metadata;
import io.netty.handler.codec.http.HttpHeaders;
import java.util.Base64;
import java.util.Set;

/**
 * A call's metadata on a Connect unary answer: what the service sent as headers goes out as HTTP
 * headers; its trailers as {@code trailer-}-prefixed headers after a success and as plain headers
 * with an error (an error's metadata, as gRPC sends it in a trailers-only answer and connect-go
 * with its errors). Binary ({@code -bin}) values are unpadded base64. Names the protocol or HTTP/1.1
 * framing own ({@code connect-*}, {@code grpc-*}, content and connection headers) are not copied.
 * Stateless.
 */
final class ConnectMetadata {
  private static final Set<String> FRAMING = Set.of("content-type", "content-length", "content-encoding",
      "transfer-encoding", "connection", "keep-alive", "upgrade", "te", "trailer", "host", "date");
  private static final Base64.Encoder BASE64 = Base64.getEncoder().withoutPadding();

  private ConnectMetadata() {}

  /** Adds {@code metadata} to {@code http}, each name prefixed with {@code prefix} ("" or "trailer-"). */
  static void copy(Metadata metadata, HttpHeaders http, String prefix) {
    for (String key : metadata.keys()) {
      if (FRAMING.contains(key) || key.startsWith("connect-") || key.startsWith("grpc-")) {
        continue;
      }
      if (key.endsWith(Metadata.BINARY_HEADER_SUFFIX)) {
        for (byte[] value : metadata.getAll(Metadata.Key.of(key, Metadata.BINARY_BYTE_MARSHALLER))) {
          http.add(prefix + key, BASE64.encodeToString(value));
        }
      } else {
        for (String value : metadata.getAll(Metadata.Key.of(key, Metadata.ASCII_STRING_MARSHALLER))) {
          http.add(prefix + key, value);
        }
      }
    }
  }
}
