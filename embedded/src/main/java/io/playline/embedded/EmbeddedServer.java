package io.playline.embedded;

/**
 * A real backend server started by this process; {@link #close()} stops it.
 *
 * <p>Implementations are thread-safe.
 */
public interface EmbeddedServer extends AutoCloseable {

  /** Returns the backend's short name: {@code "redis"}, {@code "kafka"} or {@code "hbase"}. */
  String name();

  /**
   * Stops the server; idempotent, bounded in time, logs what it does and throws no checked
   * exception.
   */
  @Override
  void close();
}
