package io.playline.roles.cli;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.util.ContextInitializer;
import ch.qos.logback.core.joran.spi.JoranException;
import ch.qos.logback.core.util.StatusPrinter2;
import io.playline.core.config.ConfigSource;
import io.playline.roles.RoleSettings;
import java.nio.file.Path;
import org.slf4j.LoggerFactory;

/**
 * Where a node process (standalone, gateway, api, job) writes its log files: {@code log.dir}, else
 * {@code <data.dir>/logs}. The logging configuration ({@code config/logback.xml}, or the copy in
 * the standalone jar) has a file appender only while the system property {@value #PROPERTY} names a
 * directory; {@link #writeTo} sets it, and only a node's command calls that, so the operator
 * commands ({@code token}, {@code play}, {@code status}, {@code history}) log to the console and
 * create no file. Called once, by the process's entry point, before the node starts.
 */
public final class NodeLogs {
  /** The system property the logging configuration reads the log directory from. */
  public static final String PROPERTY = "playline.log.dir";

  private static volatile boolean owned;

  private NodeLogs() {}

  /**
   * Lets {@link #writeTo} configure logging: the process's {@code main} calls it; tests that run a
   * command inside their own JVM do not, so their logging stays as they set it.
   */
  public static void ownedByThisProcess() {
    owned = true;
  }

  /** The node's log directory in {@code config}, absolute. */
  public static Path dir(ConfigSource config) {
    Path dir = RoleSettings.LOG_DIR.read(config).map(Path::of)
        .orElseGet(() -> Path.of(RoleSettings.DATA_DIR.read(config)).resolve("logs"));
    return dir.toAbsolutePath().normalize();
  }

  /**
   * Adds the log files under {@code dir} to this process's logging, reading its configuration again
   * with {@value #PROPERTY} set (something may have logged, and so configured it, before the node's
   * config was known). Does nothing unless {@link #ownedByThisProcess} was called.
   */
  public static void writeTo(Path dir) {
    if (!owned) {
      return;
    }
    System.setProperty(PROPERTY, dir.toString());
    if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
      context.reset();
      try {
        new ContextInitializer(context).autoConfig();
      } catch (JoranException e) {
        // Printed below with the configuration's other errors; the console appender may be gone.
      }
      new StatusPrinter2().printInCaseOfErrorsOrWarnings(context);
    }
  }
}
