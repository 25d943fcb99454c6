package io.playline.node.tls;

import io.grpc.netty.GrpcSslContexts;
import io.grpc.util.AdvancedTlsX509KeyManager;
import io.grpc.util.AdvancedTlsX509TrustManager;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.playline.core.config.ConfigException;
import io.playline.time.FixedDelay;
import io.playline.time.Time;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server side of TLS for one node: one key manager holding the node's certificate, shared by
 * the WebSocket, player gRPC and internal API contexts, and (with {@code api.tls.client.ca}) a
 * trust manager for the API's client certificates. Every {@code tls.reload.interval} the PEM files
 * are read and, when their content changed, loaded into the managers: new handshakes use the new
 * certificate at once, open connections are untouched. A file that does not load (half-written,
 * wrong key) is logged and counted, and the previous certificate stays. OpenSSL (netty-tcnative
 * BoringSSL) serves when it loads ({@code tls.provider} auto), else the JDK. Thread-safe.
 */
public final class ServerTls implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ServerTls.class);

  private final TlsConfig settings;
  private final SslProvider provider;
  private final AdvancedTlsX509KeyManager keys = new AdvancedTlsX509KeyManager();
  private final @Nullable AdvancedTlsX509TrustManager clientCas;
  private final ScheduledExecutorService reloader;
  private final SslContext webSocket;
  private final SslContext grpc;
  private final SslContext api;
  private final SslContext apiHttp;
  private final Counter reloaded;
  private final Counter reloadFailed;
  private byte[] identityDigest;
  private byte @Nullable [] failedDigest;
  private byte @Nullable [] caDigest;
  private volatile long notAfterSeconds;

  private ServerTls(TlsConfig settings, MeterRegistry registry, Time time) throws IOException,
      GeneralSecurityException {
    this.settings = settings;
    this.provider = provider(settings.provider());
    Path cert = required(settings.cert());
    Path key = required(settings.key());
    identityDigest = digest(cert, key);
    X509Certificate[] chain = loadIdentity(cert, key);
    notAfterSeconds = chain[0].getNotAfter().toInstant().getEpochSecond();
    Path ca = settings.clientCa();
    if (ca != null) {
      clientCas = AdvancedTlsX509TrustManager.newBuilder()
          .setVerification(AdvancedTlsX509TrustManager.Verification.CERTIFICATE_ONLY_VERIFICATION).build();
      caDigest = digest(ca);
      clientCas.updateTrustCredentials(ca.toFile());
    } else {
      clientCas = null;
    }
    webSocket = SslContextBuilder.forServer(keys).sslProvider(provider).protocols("TLSv1.3", "TLSv1.2").build();
    grpc = GrpcSslContexts.configure(SslContextBuilder.forServer(keys), provider).build();
    api = clientCas == null ? grpc : GrpcSslContexts.configure(SslContextBuilder.forServer(keys)
        .trustManager(clientCas).clientAuth(ClientAuth.REQUIRE), provider).build();
    SslContextBuilder http = SslContextBuilder.forServer(keys).sslProvider(provider).protocols("TLSv1.3", "TLSv1.2");
    apiHttp = (clientCas == null ? http : http.trustManager(clientCas).clientAuth(ClientAuth.REQUIRE)).build();
    reloaded = Counter.builder("playline.tls.reloads").tag("result", "ok")
        .description("Certificate files that changed and were loaded").register(registry);
    reloadFailed = Counter.builder("playline.tls.reloads").tag("result", "failed")
        .description("Changed certificate files that did not load (the previous ones stay)").register(registry);
    Gauge.builder("playline.tls.certificate.not.after", this, t -> t.notAfterSeconds).baseUnit("seconds")
        .description("Expiry of the served certificate, seconds since the epoch").register(registry);
    reloader = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "playline-tls-reload");
      t.setDaemon(true);
      return t;
    });
    long every = settings.reloadInterval().toMillis();
    FixedDelay.start(time, reloader, this::reloadIfChanged, every, every, TimeUnit.MILLISECONDS);
  }

  /**
   * TLS for the node's listeners, or null when {@code settings} leave them in plain text; the files
   * are checked every {@code tls.reload.interval} by {@code time}.
   */
  public static @Nullable ServerTls start(TlsConfig settings, MeterRegistry registry, Time time) {
    if (!settings.enabled()) {
      return null;
    }
    try {
      ServerTls tls = new ServerTls(settings, registry, time);
      log.info("TLS on ({}): certificate {} (expires {}), key {}{}", tls.providerName(), settings.cert(),
          java.time.Instant.ofEpochSecond(tls.notAfterSeconds), settings.key(),
          settings.clientCa() == null ? "" : ", internal API requires client certificates from " + settings.clientCa());
      return tls;
    } catch (SSLException e) {
      throw new ConfigException("tls: cannot build a TLS context from " + settings.cert() + " and " + settings.key()
          + ": " + e.getMessage());
    } catch (IOException | GeneralSecurityException | RuntimeException e) {
      if (e instanceof ConfigException c) {
        throw c;
      }
      throw new ConfigException("tls.cert / tls.key / api.tls.client.ca: cannot load " + settings.cert() + ", "
          + settings.key() + (settings.clientCa() == null ? "" : ", " + settings.clientCa()) + ": " + e);
    }
  }

  /** For the WebSocket listener (wss). */
  public SslContext webSocket() {
    return webSocket;
  }

  /** For the player gRPC listener. */
  public SslContext grpc() {
    return grpc;
  }

  /** For the internal API: requires a client certificate when {@code api.tls.client.ca} is set. */
  public SslContext api() {
    return api;
  }

  /** For the internal API's HTTP/1.1 port: as {@link #api()}, without gRPC's ALPN. */
  public SslContext apiHttp() {
    return apiHttp;
  }

  /** Whether the internal API requires client certificates. */
  public boolean mutual() {
    return clientCas != null;
  }

  /** "OpenSSL" or "JDK". */
  public String providerName() {
    return provider == SslProvider.OPENSSL ? "OpenSSL " + OpenSsl.versionString() : "JDK";
  }

  /** Reads the files and loads them if their content changed; called by the reload thread (and tests). */
  void reloadIfChanged() {
    Path cert = required(settings.cert());
    Path key = required(settings.key());
    try {
      byte[] now = digest(cert, key);
      if (!Arrays.equals(now, identityDigest) && !Arrays.equals(now, failedDigest)) {
        failedDigest = now; // until it loads: a broken file is reported once, not every interval
        X509Certificate[] chain = loadIdentity(cert, key);
        identityDigest = now;
        failedDigest = null;
        notAfterSeconds = chain[0].getNotAfter().toInstant().getEpochSecond();
        reloaded.increment();
        log.info("TLS certificate reloaded from {} (expires {}); new connections use it",
            cert, java.time.Instant.ofEpochSecond(notAfterSeconds));
      }
    } catch (IOException | GeneralSecurityException | RuntimeException e) {
      reloadFailed.increment();
      log.warn("TLS certificate files {} and {} changed but do not load; keeping the previous certificate: {}",
          cert, key, e.toString());
    }
    Path ca = settings.clientCa();
    AdvancedTlsX509TrustManager trust = clientCas;
    if (ca != null && trust != null) {
      try {
        byte[] now = digest(ca);
        if (!Arrays.equals(now, caDigest)) {
          trust.updateTrustCredentials(ca.toFile());
          caDigest = now;
          reloaded.increment();
          log.info("Client CA certificates reloaded from {}", ca);
        }
      } catch (IOException | GeneralSecurityException | RuntimeException e) {
        reloadFailed.increment();
        log.warn("Client CA file {} changed but does not load; keeping the previous CAs: {}", ca, e.toString());
      }
    }
  }

  @Override
  public void close() {
    reloader.shutdownNow();
  }

  private static SslProvider provider(TlsConfig.Provider wanted) {
    return switch (wanted) {
      case JDK -> SslProvider.JDK;
      case OPENSSL -> {
        if (!OpenSsl.isAvailable()) {
          throw new ConfigException("tls.provider: openssl, but netty-tcnative does not load here: "
              + OpenSsl.unavailabilityCause() + " (expected: auto or jdk)");
        }
        yield SslProvider.OPENSSL;
      }
      case AUTO -> OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK;
    };
  }

  private static Path required(@Nullable Path p) {
    if (p == null) {
      throw new IllegalStateException("TLS without a certificate");
    }
    return p;
  }

  /**
   * Parses the pair, checks that the key is the certificate's (a signature the certificate's public
   * key verifies), and only then hands it to the key manager; returns the chain.
   */
  private X509Certificate[] loadIdentity(Path cert, Path key) throws IOException, GeneralSecurityException {
    AdvancedTlsX509KeyManager scratch = new AdvancedTlsX509KeyManager();
    scratch.updateIdentityCredentials(cert.toFile(), key.toFile());
    String alias = scratch.chooseEngineServerAlias("", null, null);
    X509Certificate[] chain = alias == null ? null : scratch.getCertificateChain(alias);
    PrivateKey privateKey = alias == null ? null : scratch.getPrivateKey(alias);
    if (chain == null || chain.length == 0 || privateKey == null) {
      throw new GeneralSecurityException("no certificate and key in " + cert + " and " + key);
    }
    String algorithm = switch (privateKey.getAlgorithm()) {
      case "EC" -> "SHA256withECDSA";
      case "RSA" -> "SHA256withRSA";
      default -> null;
    };
    if (algorithm != null) {
      byte[] probe = new byte[32];
      new SecureRandom().nextBytes(probe);
      Signature signer = Signature.getInstance(algorithm);
      signer.initSign(privateKey);
      signer.update(probe);
      byte[] signature = signer.sign();
      Signature verifier = Signature.getInstance(algorithm);
      verifier.initVerify(chain[0].getPublicKey());
      verifier.update(probe);
      if (!verifier.verify(signature)) {
        throw new GeneralSecurityException("the key in " + key + " is not the key of the certificate in " + cert);
      }
    }
    keys.updateIdentityCredentials(chain, privateKey);
    return chain;
  }

  private static byte[] digest(Path... files) throws IOException {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      for (Path f : files) {
        sha.update(Files.readAllBytes(f));
      }
      return sha.digest();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
