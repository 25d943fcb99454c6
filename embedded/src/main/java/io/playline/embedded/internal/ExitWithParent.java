package io.playline.embedded.internal;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * Entry point of a child JVM that must not outlive the JVM that started it: runs the main class
 * named by its first argument with the remaining arguments, and exits when its standard input
 * reaches end of file.
 *
 * <p>The parent keeps the child's stdin pipe open and never writes to it; the operating system
 * closes it when the parent exits for any reason, {@code kill -9} included, which no shutdown hook
 * of the parent can cover. The child then exits through {@link System#exit} (so the server's own
 * shutdown hooks run) and halts if those have not finished within {@link #HALT_AFTER_SECONDS}.
 * Not API; used by {@code io.playline.embedded} and the local topology's role processes.
 */
public final class ExitWithParent {

  static final int HALT_AFTER_SECONDS = 20;
  /** Exit status when the parent went away. */
  static final int PARENT_GONE_STATUS = 143;

  private ExitWithParent() {}

  /** {@code args[0]}: the main class to run; the rest are its arguments. */
  public static void main(String[] args) throws Throwable {
    if (args.length == 0) {
      throw new IllegalArgumentException("usage: ExitWithParent MAIN_CLASS [ARGS...]");
    }
    Thread watchdog = new Thread(ExitWithParent::exitAtEndOfInput, "exit-with-parent");
    watchdog.setDaemon(true);
    watchdog.start();
    Method main = Class.forName(args[0]).getMethod("main", String[].class);
    try {
      main.invoke(null, (Object) Arrays.copyOfRange(args, 1, args.length));
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  private static void exitAtEndOfInput() {
    try (InputStream in = System.in) {
      byte[] ignored = new byte[256];
      while (in.read(ignored) >= 0) {
        // The parent never writes; anything read is discarded.
      }
    } catch (IOException e) {
      // A broken pipe means the same as end of input: the parent is gone.
    }
    System.err.println("exit-with-parent: parent process gone (stdin closed); exiting");
    Thread halt = new Thread(() -> {
      try {
        TimeUnit.SECONDS.sleep(HALT_AFTER_SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      Runtime.getRuntime().halt(PARENT_GONE_STATUS);
    }, "exit-with-parent-halt");
    halt.setDaemon(true);
    halt.start();
    System.exit(PARENT_GONE_STATUS);
  }
}
