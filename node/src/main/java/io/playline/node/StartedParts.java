package io.playline.node;

import java.util.Deque;
import java.util.concurrent.ConcurrentLinkedDeque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a process has started, closed in reverse start order with each failure logged and the rest
 * still closed: a failed start stops exactly what had started. Thread-safe (a shutdown hook may
 * close while another thread adds).
 */
public class StartedParts implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(StartedParts.class);

  private final Deque<AutoCloseable> parts = new ConcurrentLinkedDeque<>();

  /** Closes {@code part} when this closes, before everything added earlier; returns it. */
  public <T extends AutoCloseable> T add(T part) {
    parts.push(part);
    return part;
  }

  /** Closes every part added so far, newest first; a part added meanwhile is closed too. */
  @Override
  public void close() {
    for (AutoCloseable part = parts.poll(); part != null; part = parts.poll()) {
      closeQuietly(part);
    }
  }

  /** Closes {@code part}, logging instead of throwing. */
  public static void closeQuietly(AutoCloseable part) {
    try {
      part.close();
    } catch (Exception e) {
      log.warn("Stopping {} failed", part, e);
    }
  }
}
