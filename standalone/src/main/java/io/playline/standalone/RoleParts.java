package io.playline.standalone;

import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one process has started, closed in reverse start order: every role (and standalone) adds
 * its parts here as it starts them, so a failed start stops exactly what had started. Also the
 * process-wide pieces every role makes the same way (meters with JVM metrics, the HBase
 * connection). Thread-safe.
 */
final class RoleParts implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(RoleParts.class);

  private final Deque<AutoCloseable> parts = new ArrayDeque<>();

  /** Closes {@code part} when this closes, before everything added earlier; returns it. */
  synchronized <T extends AutoCloseable> T add(T part) {
    parts.push(part);
    return part;
  }

  /** The process's meters, with JVM memory, GC, thread, CPU and uptime metrics bound. */
  PrometheusMeterRegistry meters() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    add(registry::close);
    new JvmMemoryMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    JvmGcMetrics gc = new JvmGcMetrics();
    gc.bindTo(registry);
    add(gc);
    return registry;
  }

  /** The process's one HBase connection. */
  Connection hbase(Configuration configuration) {
    try {
      return add(ConnectionFactory.createConnection(configuration));
    } catch (IOException e) {
      throw new StartupException("cannot connect to HBase: " + e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    while (true) {
      AutoCloseable part;
      synchronized (this) {
        part = parts.poll();
      }
      if (part == null) {
        return;
      }
      try {
        part.close();
      } catch (Exception e) {
        log.warn("Stopping {} failed", part, e);
      }
    }
  }
}
