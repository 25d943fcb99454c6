package io.playline.api.connect;

import io.grpc.Status;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.playline.node.admin.HttpBudget;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The Connect port's own counts: {@code playline.api.http.requests{method, code}} (every answer, by
 * method and Connect code) and {@code playline.api.http.refused{reason=pipelined}} (the other
 * reasons, {@code connections} and {@code timeout}, are counted by the port's {@code HttpBudget}
 * under the same name). What the calls do is counted where the gRPC port's calls are too
 * (interceptors, the history service). Thread-safe.
 */
final class ConnectMetrics {
  static final String REFUSED = "playline.api.http.refused";

  private final MeterRegistry registry;
  private final Counter pipelined;
  /** By method and code: a few dozen at most (the methods are the service's, unknown paths count as "unknown"). */
  private final ConcurrentHashMap<String, Counter> answers = new ConcurrentHashMap<>();

  ConnectMetrics(MeterRegistry registry) {
    this.registry = registry;
    this.pipelined = Counter.builder(REFUSED).tag("reason", "pipelined")
        .description("API HTTP connections closed: over api.http.max.connections, no whole request within "
            + "api.http.request.timeout, or more than api.http.max.pipelined requests ahead")
        .register(registry);
  }

  void answered(String method, Status.Code code) {
    answers.computeIfAbsent(method + ' ' + code.name(), k -> Counter.builder("playline.api.http.requests")
        .tag("method", method).tag("code", ConnectErrors.name(code))
        .description("Internal API requests answered over HTTP (Connect), by method and code").register(registry))
        .increment();
  }

  void refusedPipelined() {
    pipelined.increment();
  }
}
