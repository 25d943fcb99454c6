package io.playline.embedded;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts a native server process so that the kernel sends it SIGTERM when this JVM dies, {@code kill
 * -9} included, where the OS allows it: on Linux through util-linux's {@code setpriv --pdeathsig
 * TERM}, which sets the signal and then executes the server in place (same pid, same command name,
 * so {@link LeftoverRedis} still recognises it). Elsewhere, without {@code setpriv}, or with the
 * system property {@value #PROPERTY}{@code =false}, the process starts plainly; the {@link
 * LeftoverRedis} sweep on the next start is the guarantee either way, this only keeps a leftover
 * from running (and holding its files and port) until then.
 *
 * <p>Linux sends the signal when the <em>thread</em> that started the process ends, not the JVM, so
 * every start runs on one daemon thread that lives as long as the JVM. Thread-safe.
 */
final class ParentDeathSignal {

  private static final Logger log = LoggerFactory.getLogger(ParentDeathSignal.class);
  /** Set to {@code false} to start servers plainly (e.g. to test the leftover sweep end to end). */
  static final String PROPERTY = "playline.embedded.exitWithParent";
  private static final Optional<Path> SETPRIV = System.getProperty("os.name", "").equals("Linux")
      && !"false".equals(System.getProperty(PROPERTY))
      ? RedisBinary.onPath("setpriv", System.getenv("PATH")) : Optional.empty();
  /**
   * util-linux's {@code setsid}: the server runs in a session (and process group) of its own, so a
   * signal to the JVM's process group — Ctrl-C in a terminal, {@code kill -INT -PGID} — reaches the
   * JVM alone, which then stops every part in order, the server last. Without it the server died
   * with the JVM's parts still using it (and was restarted as if it had crashed).
   */
  private static final Optional<Path> SETSID = System.getProperty("os.name", "").equals("Linux")
      ? RedisBinary.onPath("setsid", System.getenv("PATH")) : Optional.empty();
  private static final ExecutorService SPAWNER = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "embedded-process-spawner");
    t.setDaemon(true);
    return t;
  });

  static {
    if (SETPRIV.isEmpty()) {
      log.info("Embedded redis-server processes do not exit with this JVM by themselves (no setpriv on PATH, not "
          + "Linux, or {}=false); the next start stops a leftover through its pid file", PROPERTY);
    }
  }

  private ParentDeathSignal() {}

  /**
   * Starts {@code builder}'s command, prefixed with {@code setsid} and {@code setpriv --pdeathsig
   * TERM} where available (each executes the next in place: the pid is the server's).
   */
  static Process start(ProcessBuilder builder) throws IOException {
    List<String> command = new ArrayList<>();
    if (SETPRIV.isPresent()) {
      // Only with the death signal: a server in a session of its own and without it would outlive a
      // JVM killed with SIGKILL, holding its port and files until the next start's sweep.
      SETSID.ifPresent(setsid -> command.add(setsid.toString()));
    }
    SETPRIV.ifPresent(setpriv -> command.addAll(List.of(setpriv.toString(), "--pdeathsig", "TERM", "--")));
    command.addAll(builder.command());
    builder.command(command);
    Future<Process> started = SPAWNER.submit(builder::start);
    try {
      return started.get();
    } catch (InterruptedException e) {
      // The spawn takes milliseconds and goes on regardless: wait for it so as not to leave what it starts.
      try {
        started.get().destroyForcibly();
      } catch (InterruptedException | ExecutionException ignored) {
        // Nothing started, or it failed to.
      }
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while starting " + builder.command().get(0));
    } catch (ExecutionException e) {
      throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
    }
  }
}
