package io.playline.standalone.cli;

import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.playline.api.ServiceTokens;
import io.playline.api.config.ApiSettings;
import io.playline.core.config.ConfigSource;
import io.playline.roles.Secrets;
import io.playline.time.Time;
import java.io.File;
import java.io.PrintWriter;
import java.time.Duration;
import javax.net.ssl.SSLException;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Where the internal API is, how the command authenticates and how long to wait; shared by every
 * {@code history} command. Without {@code --token} the command mints a short-lived service token
 * of its own ({@value #SERVICE}) from the configured {@code api.secret}, or standalone's
 * development key when none is set. {@code --tls}/{@code --tls-ca} call over TLS; {@code
 * --tls-cert}/{@code --tls-key} present a client certificate (mTLS), which then is the credential.
 */
final class ApiOptions {
  /** The service name the CLI's own tokens carry. */
  static final String SERVICE = "playline-cli";
  private static final Duration OWN_TOKEN_TTL = Duration.ofMinutes(5);

  @Option(names = "--api", paramLabel = "HOST:PORT", description = "Internal API address (default: "
      + "$PLAYLINE_API_ADDRESS, else api.port if configured, else the running standalone's endpoints.json in the data "
      + "dir, else 127.0.0.1:9091).")
  @Nullable String apiOption;

  @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "10s",
      description = "Deadline of each call, e.g. 500ms, 10s (default: ${DEFAULT-VALUE}).")
  String timeout = "10s";

  @Option(names = "--json", description = "Print JSON (one object) instead of a table.")
  boolean json;

  @Option(names = "--token", paramLabel = "JWT",
      description = "Service token to call with (default: $PLAYLINE_API_TOKEN, else one minted from api.secret).")
  @Nullable String token = System.getenv("PLAYLINE_API_TOKEN");

  @Option(names = "--tls", description = "Call over TLS, trusting the JVM's default certificate authorities.")
  boolean tls;

  @Option(names = "--tls-ca", paramLabel = "PEM",
      description = "Call over TLS, trusting only the CA certificates in this file (default: $PLAYLINE_API_TLS_CA).")
  @Nullable String tlsCa = System.getenv("PLAYLINE_API_TLS_CA");

  @Option(names = "--tls-cert", paramLabel = "PEM",
      description = "Client certificate chain for an API with api.tls.client.ca (mTLS); needs --tls-key.")
  @Nullable String tlsCert;

  @Option(names = "--tls-key", paramLabel = "PEM", description = "PKCS#8 key of --tls-cert.")
  @Nullable String tlsKey;

  @Mixin TargetOptions target = new TargetOptions();

  private @Nullable String resolved;

  /** The bearer token: {@code --token}, else one of the CLI's own signed with {@code api.secret}. */
  String bearer() {
    String given = token;
    if (given != null && !given.isBlank()) {
      return given.trim();
    }
    String secret = ApiSettings.SECRET.read(target.config()).orElse(Secrets.DEV_API_SECRET);
    return ServiceTokens.mint(secret, SERVICE, OWN_TOKEN_TTL, Time.SYSTEM.instant());
  }

  /** The API's {@code host:port} ({@link TargetNode}); the first call says on {@code err} which node that is. */
  String address(PrintWriter err) {
    String a = resolved;
    if (a == null) {
      a = target.address(TargetNode.Port.API, apiOption, err);
      resolved = a;
    }
    return a;
  }

  Duration deadline() {
    return ConfigSource.parseDuration(timeout).filter(d -> !d.isZero())
        .orElseThrow(() -> new IllegalArgumentException("--timeout: '" + timeout + "' (expected: e.g. 500ms, 10s)"));
  }

  ManagedChannel channel(PrintWriter err) {
    String api = address(err);
    int colon = api.lastIndexOf(':');
    if (colon <= 0 || colon == api.length() - 1) {
      throw new IllegalArgumentException("--api: '" + api + "' (expected: HOST:PORT)");
    }
    int port;
    try {
      port = Integer.parseInt(api.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--api: '" + api + "' (expected: HOST:PORT)");
    }
    NettyChannelBuilder builder = NettyChannelBuilder.forAddress(api.substring(0, colon), port);
    SslContext ssl = sslContext();
    if (ssl == null) {
      builder.usePlaintext();
    } else {
      builder.sslContext(ssl);
    }
    if (tlsCert == null) {
      // With a client certificate the certificate is the credential; a token would be ignored.
      Metadata headers = new Metadata();
      headers.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + bearer());
      builder.intercept(MetadataUtils.newAttachHeadersInterceptor(headers));
    }
    return builder.build();
  }

  /** The TLS context the options ask for, or null for plain text. */
  @Nullable SslContext sslContext() {
    boolean withCa = tlsCa != null && !tlsCa.isBlank();
    if ((tlsCert == null) != (tlsKey == null)) {
      throw new IllegalArgumentException("--tls-cert and --tls-key: one without the other (expected: both)");
    }
    if (!tls && !withCa && tlsCert == null) {
      return null;
    }
    try {
      SslContextBuilder b = GrpcSslContexts.forClient();
      if (withCa) {
        b.trustManager(new File(tlsCa));
      }
      if (tlsCert != null && tlsKey != null) {
        b.keyManager(new File(tlsCert), new File(tlsKey));
      }
      return b.build();
    } catch (SSLException | IllegalArgumentException e) {
      throw new IllegalArgumentException("--tls-ca / --tls-cert / --tls-key: cannot load (" + e.getMessage() + ")", e);
    }
  }
}
