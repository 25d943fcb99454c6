package io.playline.topology;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line of a child JVM: this JVM's {@code java}, the given heap, and the module flags
 * this JVM runs with (the {@code --add-opens}/{@code --add-exports}/{@code --add-modules} HBase
 * and Netty want on JDK 17, as {@code bin/playline} and the test JVMs pass them) and bin/playline's
 * sampling interval of performance counters, nothing else (no test-only flags such as Netty's
 * paranoid leak detection).
 */
final class JvmFlags {
  private JvmFlags() {}

  /** {@code java}, {@code heap} (e.g. {@code -Xmx512m}; split on spaces), the module flags, the log dir. */
  static List<String> java(String heap, Path logDir) {
    List<String> cmd = new ArrayList<>();
    cmd.add(ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java")
        .toString()));
    for (String h : heap.trim().split("\\s+")) {
      if (!h.isEmpty()) {
        cmd.add(h);
      }
    }
    List<String> own = ManagementFactory.getRuntimeMXBean().getInputArguments();
    for (int i = 0; i < own.size(); i++) {
      String a = own.get(i);
      if (a.equals("--add-opens") || a.equals("--add-exports") || a.equals("--add-modules")) {
        if (i + 1 < own.size()) {
          cmd.add(a);
          cmd.add(own.get(++i));
        }
      } else if (a.startsWith("--add-opens=") || a.startsWith("--add-exports=") || a.startsWith("--add-modules=")
          || a.endsWith("tryReflectionSetAccessible=true")) {
        cmd.add(a);
      }
    }
    cmd.add("-Dio.netty.leakDetection.level=disabled");
    // As bin/playline: performance counters sampled once a second, not every 50 ms.
    cmd.add("-XX:PerfDataSamplingInterval=1000");
    cmd.add("-Dplayline.log.dir=" + logDir);
    return cmd;
  }
}
