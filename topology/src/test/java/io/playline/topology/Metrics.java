package io.playline.topology;

import io.playline.testing.AdminMetrics;
import java.io.IOException;

/** Reads a process's Prometheus metrics from its admin port ({@link AdminMetrics} on its admin address). */
final class Metrics {
  private Metrics() {}

  /** The HTTP status of {@code path} on the process's admin port (e.g. 200 or 503 for {@code /readyz}). */
  static int status(RoleProcess process, String path) throws IOException, InterruptedException {
    return AdminMetrics.status(process.address("admin"), path);
  }

  /** The sum of every sample of {@code name} (all label sets); fails if there is none. */
  static double gauge(RoleProcess process, String name) throws IOException, InterruptedException {
    return AdminMetrics.gauge(process.address("admin"), name);
  }

  /** The sum of the samples whose line starts with {@code prefix}, e.g. a name and its first label; fails if none. */
  static double samples(RoleProcess process, String prefix) throws IOException, InterruptedException {
    return AdminMetrics.samples(process.address("admin"), prefix);
  }
}
