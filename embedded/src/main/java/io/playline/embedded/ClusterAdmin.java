package io.playline.embedded;

import io.playline.time.Time;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The raw cluster commands {@link EmbeddedRedisCluster} sends to one node on 127.0.0.1 (over
 * {@link RespClient}: one connection per command), and a bounded poll for conditions on them.
 * Only commands Redis 6.2 has. Stateless.
 */
final class ClusterAdmin {
  static final String HOST = "127.0.0.1";
  private static final Duration CALL_TIMEOUT = Duration.ofSeconds(2);
  private static final Duration POLL_PAUSE = Duration.ofMillis(50);

  private ClusterAdmin() {}

  /** Sends one command to the node on {@code port}; see {@link RespClient#call}. */
  static @Nullable String call(int port, String... args) throws IOException {
    return RespClient.call(HOST, port, CALL_TIMEOUT, args);
  }

  /** {@code CLUSTER NODES} of the node on {@code port}. */
  static ClusterView view(int port) throws IOException {
    return ClusterView.parse(text(port, "CLUSTER", "NODES"));
  }

  /** The {@code key:value} lines of {@code INFO section} or {@code CLUSTER INFO} as a map. */
  static Map<String, String> info(int port, String... command) throws IOException {
    Map<String, String> fields = new HashMap<>();
    for (String line : text(port, command).split("\r?\n")) {
      int colon = line.indexOf(':');
      if (colon > 0 && !line.startsWith("#")) {
        fields.put(line.substring(0, colon), line.substring(colon + 1).trim());
      }
    }
    return fields;
  }

  /** The hash slot of {@code key} ({@code CLUSTER KEYSLOT}). */
  static int keySlot(int port, String key) throws IOException {
    return Integer.parseInt(text(port, "CLUSTER", "KEYSLOT", key));
  }

  private static String text(int port, String... command) throws IOException {
    String reply = call(port, command);
    if (reply == null) {
      throw new IOException(String.join(" ", command) + " on port " + port + ": no reply");
    }
    return reply;
  }

  /** A condition polled until it holds; returns null when it does, else what is still missing. */
  @FunctionalInterface
  interface Check {
    @Nullable String missing() throws IOException;
  }

  /**
   * Polls {@code check} every 50 ms until it holds or {@code timeout} passed; an IOException from
   * it counts as not yet.
   *
   * @throws IOException naming {@code what} and the last thing missing when time ran out
   */
  static void await(String what, Duration timeout, Check check) throws IOException {
    long deadline = Time.SYSTEM.nanoTime() + timeout.toNanos();
    String missing;
    do {
      try {
        missing = check.missing();
      } catch (IOException | RuntimeException e) {
        missing = e.toString();
      }
      if (missing == null) {
        return;
      }
      try {
        Thread.sleep(POLL_PAUSE.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while waiting for " + what);
      }
    } while (Time.SYSTEM.nanoTime() < deadline);
    throw new IOException("Redis Cluster: " + what + " not reached within " + timeout.toMillis() + " ms; "
        + missing);
  }
}
