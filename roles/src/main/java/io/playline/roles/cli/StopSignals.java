package io.playline.roles.cli;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ctrl-C (SIGINT) and SIGTERM as a request to stop: the action runs on a thread of its own while
 * the JVM is not shutting down yet, so a node stops its parts in order with everything still
 * working. Left to the JVM, the signal starts its shutdown: the stop then runs in a shutdown hook
 * beside the dependencies' own hooks (Hadoop's file systems, an embedded server's kill on exit),
 * and a part still starting fails in ways that log errors (HBase cannot add its hooks then). The
 * process exits once the stop is done, by returning from its command.
 *
 * <p>A signal the process was started ignoring (a script's background job ignores SIGINT) stays
 * ignored. {@code sun.misc.Signal} is called reflectively (as Kafka's broker does), because javac
 * flags its direct use as internal API; where it is missing, the JVM's own handling (and so the
 * command's shutdown hook) applies.
 */
public final class StopSignals {
  private static final Logger log = LoggerFactory.getLogger(StopSignals.class);
  private static final List<String> SIGNALS = List.of("INT", "TERM");

  private StopSignals() {}

  /**
   * Handles SIGINT and SIGTERM from now on: the first runs {@code stop} with the signal's name
   * ({@code INT} or {@code TERM}) on a new thread; later ones are logged and otherwise ignored
   * (the stop is bounded by {@code shutdown.timeout}).
   */
  public static void install(Consumer<String> stop) {
    try {
      Class<?> signalType = Class.forName("sun.misc.Signal");
      Class<?> handlerType = Class.forName("sun.misc.SignalHandler");
      Method handle = signalType.getMethod("handle", signalType, handlerType);
      Method name = signalType.getMethod("getName");
      Object ignored = handlerType.getField("SIG_IGN").get(null);
      Object handler = Proxy.newProxyInstance(StopSignals.class.getClassLoader(), new Class<?>[] {handlerType},
          new Handler(stop, name));
      for (String signal : SIGNALS) {
        Object s = signalType.getConstructor(String.class).newInstance(signal);
        Object previous = handle.invoke(null, s, handler);
        if (previous == ignored) {
          handle.invoke(null, s, ignored);
        }
      }
    } catch (ReflectiveOperationException | RuntimeException e) {
      Throwable cause = e instanceof InvocationTargetException t && t.getCause() != null ? t.getCause() : e;
      log.debug("Ctrl-C and SIGTERM are left to the JVM: {}", cause.toString());
    }
  }

  /** The {@code sun.misc.SignalHandler}: the first signal stops, the others are noted. */
  private static final class Handler implements java.lang.reflect.InvocationHandler {
    private final Consumer<String> stop;
    private final Method name;
    private boolean stopping;

    Handler(Consumer<String> stop, Method name) {
      this.stop = stop;
      this.name = name;
    }

    @Override
    public @Nullable Object invoke(Object proxy, Method method, Object @Nullable [] args) throws ReflectiveOperationException {
      switch (method.getName()) {
        case "handle" -> {
          String signal = String.valueOf(name.invoke(args == null ? null : args[0]));
          synchronized (this) {
            if (stopping) {
              log.info("SIG{} while stopping: the stop goes on (bounded by shutdown.timeout)", signal);
              return null;
            }
            stopping = true;
          }
          Thread t = new Thread(() -> stop.accept(signal), "playline-stop-on-SIG" + signal);
          t.start();
          return null;
        }
        case "equals" -> {
          return args != null && proxy == args[0];
        }
        case "hashCode" -> {
          return System.identityHashCode(proxy);
        }
        case "toString" -> {
          return "StopSignals.Handler";
        }
        default -> throw new UnsupportedOperationException(method.getName());
      }
    }
  }
}
