package io.playline.topology;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Role processes must not outlive the JVM that started them (a test run or {@code bin/playline
 * topology up} that is killed would leave gateways holding ports): every one is registered here
 * and forcibly stopped by one shutdown hook. Thread-safe.
 */
final class ChildProcesses {
  private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(Process::destroyForcibly),
        "playline-topology-reaper"));
  }

  private ChildProcesses() {}

  /** Kills {@code p} when this JVM exits, unless it has ended by then. */
  static void register(Process p) {
    LIVE.removeIf(q -> !q.isAlive());
    LIVE.add(p);
  }
}
