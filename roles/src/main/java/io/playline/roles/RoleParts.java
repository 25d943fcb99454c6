package io.playline.roles;

import io.micrometer.core.instrument.binder.jvm.JvmCompilationMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.playline.node.StartedParts;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;

/**
 * What one role process has started ({@link StartedParts}), plus the process-wide pieces every
 * role makes the same way: meters with JVM metrics, the job's HBase connection. Thread-safe.
 */
public final class RoleParts extends StartedParts {
  /** The process's meters, with JVM memory, GC, thread, JIT compilation, CPU and uptime metrics bound. */
  public PrometheusMeterRegistry meters() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    add(registry::close);
    new JvmMemoryMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new JvmCompilationMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    JvmGcMetrics gc = new JvmGcMetrics();
    gc.bindTo(registry);
    add(gc);
    return registry;
  }

  /**
   * An HBase connection opened now, for a process that writes HBase all along (the job). A gateway
   * or api node reads through its history core's client instead, which opens on first need.
   */
  public Connection hbase(Configuration configuration) {
    try {
      return add(ConnectionFactory.createConnection(configuration));
    } catch (IOException e) {
      throw new StartupException("cannot connect to HBase: " + e.getMessage(), e);
    }
  }
}
