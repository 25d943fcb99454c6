package io.playline.node.tls;

import io.playline.core.config.ConfigException;
import io.playline.core.config.ConfigSource;
import io.playline.core.config.Setting;
import io.playline.node.settings.NodeSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * TLS settings of a node's listeners. With {@code tls.cert} and {@code tls.key} (PEM: the
 * certificate chain, leaf first, and its PKCS#8 private key) the WebSocket port speaks wss and both
 * gRPC ports speak TLS; {@code api.tls.client.ca} (PEM, one or more CA certificates) makes the
 * internal API require a client certificate issued by one of them (mTLS). The files are checked
 * every {@code tls.reload.interval} and reloaded when they change; open connections keep the
 * certificate they were made with. Each key's default and range: docs/configuration.md.
 *
 * @param cert certificate chain file, or null for plain text
 * @param key private key file of {@code cert}, or null
 * @param clientCa CAs whose client certificates the internal API requires, or null (no mTLS)
 * @param reloadInterval how often the files are checked for changes ({@code tls.reload.interval})
 * @param provider the TLS implementation ({@code tls.provider}: auto = OpenSSL when it loads, else the JDK)
 */
public record TlsConfig(@Nullable Path cert, @Nullable Path key, @Nullable Path clientCa, Duration reloadInterval,
    Provider provider) {

  /** Which TLS implementation serves the listeners. */
  public enum Provider { AUTO, OPENSSL, JDK }

  /** Plain text everywhere. */
  public static final TlsConfig OFF = new TlsConfig(null, null, null, Duration.ofMinutes(1), Provider.AUTO);

  public TlsConfig {
    if ((cert == null) != (key == null)) {
      throw new ConfigException("tls.cert and tls.key: " + (cert == null ? "tls.key" : "tls.cert")
          + " is set without the other (expected: both, or neither for plain text)");
    }
    if (clientCa != null && cert == null) {
      throw new ConfigException("api.tls.client.ca: set without tls.cert and tls.key (mTLS needs TLS)");
    }
    readable("tls.cert", cert);
    readable("tls.key", key);
    readable("api.tls.client.ca", clientCa);
  }

  /** Reads {@code tls.cert}, {@code tls.key}, {@code api.tls.client.ca}, {@code tls.reload.interval}, {@code tls.provider}. */
  public static TlsConfig from(ConfigSource c) {
    String provider = NodeSettings.TLS_PROVIDER.read(c).toUpperCase(Locale.ROOT);
    Provider p;
    try {
      p = Provider.valueOf(provider);
    } catch (IllegalArgumentException e) {
      throw new ConfigException("tls.provider: '" + provider.toLowerCase(Locale.ROOT)
          + "' (expected: auto, openssl or jdk)");
    }
    return new TlsConfig(path(c, NodeSettings.TLS_CERT), path(c, NodeSettings.TLS_KEY),
        path(c, NodeSettings.API_TLS_CLIENT_CA), NodeSettings.TLS_RELOAD_INTERVAL.read(c), p);
  }

  /** Whether the listeners speak TLS. */
  public boolean enabled() {
    return cert != null;
  }

  private static @Nullable Path path(ConfigSource c, Setting<Optional<String>> setting) {
    String value = setting.read(c).orElse("");
    return value.isBlank() ? null : Path.of(value);
  }

  private static void readable(String key, @Nullable Path file) {
    if (file != null && !Files.isReadable(file)) {
      throw new ConfigException(key + ": " + file + " (expected: a readable PEM file)");
    }
  }
}
