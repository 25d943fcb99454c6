package io.playline.roles.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import java.util.concurrent.RejectedExecutionException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Marker;

/**
 * Drops one error of the embedded HBase's stop that has nothing to act on: ZooKeeper's client
 * delivers a watch event to an HBase {@code ZKWatcher} whose event executor its {@code close()}
 * has just shut down. The watcher checks {@code isShutdown()} before it hands the event on, but
 * the close can come between the check and the hand-off, so the executor refuses the event and
 * ZooKeeper logs "Error while calling watcher" with a {@link RejectedExecutionException} and its
 * stack trace. The event is for a watcher that is going away; nothing is lost.
 *
 * <p>Only that error is dropped: the logger {@value #LOGGER} at ERROR, that message, and a refused
 * hand-off thrown by HBase's {@code ZKWatcher.process} as the cause. Any other error of ZooKeeper's
 * client (another watcher's refused hand-off, a watcher that failed on its own, a lost session) is
 * logged as before. Installed by the shipped {@code logback.xml} as a {@code <turboFilter>}, which
 * sees an event before it is built; in a process without an embedded HBase it never matches.
 */
public final class ClosedWatcherEventFilter extends TurboFilter {
  /** ZooKeeper's client connection, which logs a watcher's failure. */
  static final String LOGGER = "org.apache.zookeeper.ClientCnxn";
  /** The start of the message it logs when a watcher throws. */
  static final String MESSAGE = "Error while calling watcher";
  /** HBase's watcher, whose {@code process} hands events to its executor. */
  static final String WATCHER = "org.apache.hadoop.hbase.zookeeper.ZKWatcher";

  @Override
  public FilterReply decide(@Nullable Marker marker, Logger logger, Level level,
      @Nullable String format, Object @Nullable [] params, @Nullable Throwable t) {
    if (t instanceof RejectedExecutionException && level == Level.ERROR
        && format != null && format.startsWith(MESSAGE) && LOGGER.equals(logger.getName())
        && thrownByTheWatcher(t)) {
      return FilterReply.DENY;
    }
    return FilterReply.NEUTRAL;
  }

  /** Whether HBase's {@code ZKWatcher.process} is on {@code t}'s stack: its hand-off was refused. */
  private static boolean thrownByTheWatcher(Throwable t) {
    for (StackTraceElement frame : t.getStackTrace()) {
      if (WATCHER.equals(frame.getClassName()) && "process".equals(frame.getMethodName())) {
        return true;
      }
    }
    return false;
  }
}
