package io.playline.client.okhttp;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Collection;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;

/**
 * An {@link X509TrustManager} trusting only the CA certificates of one PEM file, and the TLS socket
 * factory OkHttp connects with; OkHttp itself checks that the gateway's certificate names the host.
 * Built once per client, while it is built.
 */
final class PemTrust {
  /** The trust manager and a socket factory using it. */
  static final class Trust {
    private final SSLSocketFactory socketFactory;
    private final X509TrustManager trustManager;

    Trust(SSLSocketFactory socketFactory, X509TrustManager trustManager) {
      this.socketFactory = socketFactory;
      this.trustManager = trustManager;
    }

    SSLSocketFactory socketFactory() {
      return socketFactory;
    }

    X509TrustManager trustManager() {
      return trustManager;
    }
  }

  private PemTrust() {}

  /** @throws IllegalArgumentException naming {@code caPem} when it holds no readable certificate */
  static Trust of(Path caPem) {
    try (InputStream in = Files.newInputStream(caPem)) {
      Collection<? extends Certificate> cas = CertificateFactory.getInstance("X.509").generateCertificates(in);
      if (cas.isEmpty()) {
        throw new GeneralSecurityException("no certificate in the file");
      }
      KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
      store.load(null, null);
      int i = 0;
      for (Certificate ca : cas) {
        store.setCertificateEntry("ca-" + i++, ca);
      }
      TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(store);
      X509TrustManager tm = null;
      for (TrustManager m : tmf.getTrustManagers()) {
        if (m instanceof X509TrustManager) {
          tm = (X509TrustManager) m;
        }
      }
      if (tm == null) {
        throw new GeneralSecurityException("no X.509 trust manager");
      }
      SSLContext tls = SSLContext.getInstance("TLS");
      tls.init(null, new TrustManager[] {tm}, null);
      return new Trust(tls.getSocketFactory(), tm);
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalArgumentException("trustCertificates: " + caPem + " (expected: PEM certificates): "
          + e.getMessage(), e);
    }
  }
}
