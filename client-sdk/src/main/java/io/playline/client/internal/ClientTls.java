package io.playline.client.internal;

import io.grpc.netty.GrpcSslContexts;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.nio.file.Path;
import javax.net.ssl.SSLException;
import org.jspecify.annotations.Nullable;

/**
 * The client's TLS contexts, built once per client from {@link ClientConfig.Tls}: the JVM's (or
 * the given) certificate authorities, and the server's name checked against the endpoint's host
 * (HTTPS rules) on both transports.
 */
public final class ClientTls {
  private ClientTls() {}

  /** For wss, or null for plain text. */
  public static @Nullable SslContext webSocket(ClientConfig.@Nullable Tls tls) {
    if (tls == null) {
      return null;
    }
    return build(SslContextBuilder.forClient().endpointIdentificationAlgorithm("HTTPS"), tls);
  }

  /** For gRPC over TLS (ALPN h2; gRPC checks the server's name itself), or null for plain text. */
  public static @Nullable SslContext grpc(ClientConfig.@Nullable Tls tls) {
    if (tls == null) {
      return null;
    }
    return build(GrpcSslContexts.forClient(), tls);
  }

  private static SslContext build(SslContextBuilder b, ClientConfig.Tls tls) {
    Path cas = tls.trustedCertificates();
    try {
      return (cas == null ? b : b.trustManager(cas.toFile())).build();
    } catch (SSLException | IllegalArgumentException e) {
      throw new IllegalArgumentException("trustCertificates: " + tls.trustedCertificates()
          + " (expected: PEM certificates): " + e.getMessage(), e);
    }
  }
}
