package io.playline.testing;

import io.playline.time.Time;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Certificate authorities and certificates for TLS tests, written as PEM files the way an operator
 * hands them to Playline: a certificate chain file and a PKCS#8 private key file. EC P-256 keys,
 * valid from an hour ago for a day. Thread-safe.
 */
public final class TestCertificates {
  private static final AtomicLong SERIALS = new AtomicLong(Time.SYSTEM.millis());

  /** A certificate and its key, in memory and as PEM files. */
  public record Issued(X509Certificate certificate, KeyPair keys, Path certFile, Path keyFile) {}

  private TestCertificates() {}

  /** A self-signed certificate authority named {@code name}, its files in {@code dir}. */
  public static Issued authority(Path dir, String name) {
    KeyPair keys = newKeys();
    X500Name subject = new X500Name("CN=" + name);
    try {
      X509v3CertificateBuilder b = builder(subject, subject, keys);
      b.addExtension(Extension.basicConstraints, true, new BasicConstraints(0));
      b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
      return write(dir, name, sign(b, keys), keys);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A server certificate for {@code localhost} and 127.0.0.1 issued by {@code ca}. */
  public static Issued server(Path dir, String name, Issued ca) {
    return leaf(dir, name, ca, KeyPurposeId.id_kp_serverAuth, new GeneralNames(new GeneralName[] {
        new GeneralName(GeneralName.dNSName, "localhost"), new GeneralName(GeneralName.iPAddress, "127.0.0.1")}));
  }

  /** A server certificate naming only {@code host} (a DNS name), issued by {@code ca}. */
  public static Issued serverNamed(Path dir, String name, Issued ca, String host) {
    return leaf(dir, name, ca, KeyPurposeId.id_kp_serverAuth,
        new GeneralNames(new GeneralName(GeneralName.dNSName, host)));
  }

  /** A client certificate (CN = {@code name}) issued by {@code ca}, for mTLS. */
  public static Issued client(Path dir, String name, Issued ca) {
    return leaf(dir, name, ca, KeyPurposeId.id_kp_clientAuth, new GeneralNames(new GeneralName[] {
        new GeneralName(GeneralName.dNSName, "localhost"), new GeneralName(GeneralName.iPAddress, "127.0.0.1")}));
  }

  /**
   * Replaces {@code target}'s files by {@code source}'s, each with an atomic move (as a secret
   * mounted by an orchestrator is swapped), so a reader sees either the old or the new file.
   */
  public static void replace(Issued target, Issued source) {
    try {
      copyAtomically(source.keyFile(), target.keyFile());
      copyAtomically(source.certFile(), target.certFile());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A JDK TLS context trusting only {@code ca} (for the JDK's WebSocket and HTTP clients). */
  public static javax.net.ssl.SSLContext trusting(Issued ca) {
    try {
      java.security.KeyStore store = java.security.KeyStore.getInstance("PKCS12");
      store.load(null, null);
      store.setCertificateEntry("ca", ca.certificate());
      javax.net.ssl.TrustManagerFactory tmf =
          javax.net.ssl.TrustManagerFactory.getInstance(javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(store);
      javax.net.ssl.SSLContext ssl = javax.net.ssl.SSLContext.getInstance("TLS");
      ssl.init(null, tmf.getTrustManagers(), null);
      return ssl;
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A gRPC client TLS context trusting the CAs in {@code caPem}, presenting {@code client} when not null. */
  public static io.netty.handler.ssl.SslContext grpcClientContext(Path caPem, @org.jspecify.annotations.Nullable Issued client)
      throws javax.net.ssl.SSLException {
    io.netty.handler.ssl.SslContextBuilder b = io.grpc.netty.GrpcSslContexts.forClient().trustManager(caPem.toFile());
    if (client != null) {
      b.keyManager(client.certFile().toFile(), client.keyFile().toFile());
    }
    return b.build();
  }

  private static void copyAtomically(Path from, Path to) throws IOException {
    Path tmp = to.resolveSibling(to.getFileName() + ".tmp");
    Files.copy(from, tmp, StandardCopyOption.REPLACE_EXISTING);
    Files.move(tmp, to, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  private static Issued leaf(Path dir, String name, Issued ca, KeyPurposeId purpose, GeneralNames names) {
    KeyPair keys = newKeys();
    try {
      X509v3CertificateBuilder b = builder(X500Name.getInstance(ca.certificate().getSubjectX500Principal().getEncoded()),
          new X500Name("CN=" + name), keys);
      b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
      b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyAgreement));
      b.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purpose));
      b.addExtension(Extension.subjectAlternativeName, false, names);
      return write(dir, name, sign(b, ca.keys()), keys);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static X509v3CertificateBuilder builder(X500Name issuer, X500Name subject, KeyPair keys) {
    Instant now = Time.SYSTEM.instant();
    return new JcaX509v3CertificateBuilder(issuer, BigInteger.valueOf(SERIALS.incrementAndGet()),
        Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(Duration.ofDays(1))), subject, keys.getPublic());
  }

  private static X509Certificate sign(X509v3CertificateBuilder b, KeyPair issuerKeys) {
    try {
      ContentSigner signer = new JcaContentSignerBuilder("SHA256withECDSA").build(issuerKeys.getPrivate());
      return new JcaX509CertificateConverter().getCertificate(b.build(signer));
    } catch (GeneralSecurityException | org.bouncycastle.operator.OperatorCreationException e) {
      throw new IllegalStateException(e);
    }
  }

  private static KeyPair newKeys() {
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
      g.initialize(new ECGenParameterSpec("secp256r1"));
      return g.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Issued write(Path dir, String name, X509Certificate cert, KeyPair keys) throws IOException {
    Files.createDirectories(dir);
    Path certFile = dir.resolve(name + ".crt");
    Path keyFile = dir.resolve(name + ".key");
    Files.writeString(certFile, pem(cert));
    Files.writeString(keyFile, pem(new JcaPKCS8Generator(keys.getPrivate(), null).generate()));
    return new Issued(cert, keys, certFile, keyFile);
  }

  private static String pem(Object o) throws IOException {
    StringWriter out = new StringWriter();
    try (JcaPEMWriter w = new JcaPEMWriter(out)) {
      w.writeObject(o);
    }
    return out.toString();
  }
}
