package io.playline.client.internal;

import java.util.logging.Level;
import java.util.logging.Logger;
import org.jspecify.annotations.Nullable;

/**
 * The SDK's log, so that slf4j-api can be an optional dependency: SLF4J when the app has it with a
 * provider (logback, slf4j-simple, slf4j-android…), otherwise {@code java.util.logging}, which Android
 * sends to Logcat. Without the provider check, slf4j-api alone (an app that never chose a logger)
 * would print "No SLF4J providers were found" on every start. Messages use SLF4J's {@code {}}
 * placeholders either way; a trailing {@link Throwable} argument is logged as the cause.
 *
 * <p>Thread-safe; which backend is used is decided once, when this class loads.
 */
public abstract class ClientLog {
  private static final boolean SLF4J = slf4jWithProvider(ClientLog.class.getClassLoader());

  ClientLog() {}

  /** The log for {@code owner}'s messages. */
  public static ClientLog of(Class<?> owner) {
    return SLF4J ? new Slf4jLog(owner) : new JulLog(owner);
  }

  public abstract void debug(String format, @Nullable Object... args);

  public abstract void info(String format, @Nullable Object... args);

  public abstract void warn(String format, @Nullable Object... args);

  /** slf4j-api is there and an SLF4J 2 provider or an SLF4J 1.7 binding is registered. */
  static boolean slf4jWithProvider(@Nullable ClassLoader loader) {
    ClassLoader cl = loader != null ? loader : ClassLoader.getSystemClassLoader();
    try {
      Class.forName("org.slf4j.LoggerFactory", false, cl);
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
    return cl.getResource("META-INF/services/org.slf4j.spi.SLF4JServiceProvider") != null
        || cl.getResource("org/slf4j/impl/StaticLoggerBinder.class") != null;
  }

  /** {@code format} with each {@code {}} replaced by the next argument, as SLF4J formats it. */
  static String format(String format, @Nullable Object[] args) {
    StringBuilder out = new StringBuilder(format.length() + 32);
    int from = 0;
    for (int i = 0; i < args.length; i++) {
      int at = format.indexOf("{}", from);
      if (at < 0) {
        break;
      }
      out.append(format, from, at).append(args[i]);
      from = at + 2;
    }
    return out.append(format, from, format.length()).toString();
  }

  /** The trailing throwable that no placeholder takes, as SLF4J treats it, or null. */
  static @Nullable Throwable cause(String format, @Nullable Object[] args) {
    if (args.length == 0 || !(args[args.length - 1] instanceof Throwable)) {
      return null;
    }
    int placeholders = 0;
    for (int at = format.indexOf("{}"); at >= 0; at = format.indexOf("{}", at + 2)) {
      placeholders++;
    }
    return placeholders < args.length ? (Throwable) args[args.length - 1] : null;
  }

  private static final class Slf4jLog extends ClientLog {
    private final org.slf4j.Logger log;

    Slf4jLog(Class<?> owner) {
      log = org.slf4j.LoggerFactory.getLogger(owner);
    }

    @Override
    public void debug(String format, @Nullable Object... args) {
      log.debug(format, args);
    }

    @Override
    public void info(String format, @Nullable Object... args) {
      log.info(format, args);
    }

    @Override
    public void warn(String format, @Nullable Object... args) {
      log.warn(format, args);
    }
  }

  private static final class JulLog extends ClientLog {
    private final Logger log;

    JulLog(Class<?> owner) {
      log = Logger.getLogger(owner.getName());
    }

    @Override
    public void debug(String format, @Nullable Object... args) {
      log(Level.FINE, format, args);
    }

    @Override
    public void info(String format, @Nullable Object... args) {
      log(Level.INFO, format, args);
    }

    @Override
    public void warn(String format, @Nullable Object... args) {
      log(Level.WARNING, format, args);
    }

    private void log(Level level, String format, @Nullable Object[] args) {
      if (log.isLoggable(level)) {
        log.log(level, format(format, args), cause(format, args));
      }
    }
  }
}
