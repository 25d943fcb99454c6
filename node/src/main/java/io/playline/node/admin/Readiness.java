package io.playline.node.admin;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * What {@code /readyz} reports: named components, each ready or not, and each either
 * <em>required</em> (it gates readiness: a load balancer should send this process traffic only
 * while every required component is ready) or <em>reported</em> (shown in {@code /readyz} and the
 * {@code playline.health} gauge, never gating). A gateway requires its listeners and Redis (all a
 * heartbeat needs) and only reports Kafka, HBase and the job, so their outages never take
 * write-path nodes out of rotation. Components flip their own flag when they finish starting, lose
 * a backend, or begin draining. Thread-safe; reads never block.
 */
public final class Readiness {
  /**
   * One component's state; {@code detail} is what {@code /readyz} shows beside it (e.g. why a
   * reported backend counts as ready without being used), null for nothing.
   */
  public record Component(boolean ready, boolean required, @Nullable String detail) {
    /** A component with no detail. */
    public Component(boolean ready, boolean required) {
      this(ready, required, null);
    }
  }

  private final Map<String, Component> components = new ConcurrentHashMap<>();
  private volatile @Nullable MeterRegistry registry;

  /** Declares a component that gates readiness, initially not ready. */
  public void register(String component) {
    declare(component, true);
  }

  /** Declares a component that is shown but never gates readiness, initially not ready. */
  public void report(String component) {
    declare(component, false);
  }

  private void declare(String component, boolean required) {
    components.putIfAbsent(component, new Component(false, required, null));
    MeterRegistry r = registry;
    if (r != null) {
      gauge(r, component);
    }
  }

  /** Sets a component's state, without detail; one never declared counts as required. */
  public void set(String component, boolean ready) {
    set(component, ready, null);
  }

  /** Sets a component's state and what {@code /readyz} shows beside it (null: nothing). */
  public void set(String component, boolean ready, @Nullable String detail) {
    components.compute(component, (k, old) -> new Component(ready, old == null || old.required(), detail));
  }

  /** True when at least one required component is declared and every required one is ready. */
  public boolean isReady() {
    boolean any = false;
    for (Component c : components.values()) {
      if (c.required()) {
        if (!c.ready()) {
          return false;
        }
        any = true;
      }
    }
    return any;
  }

  /** True when every component, required or reported, is ready (e.g. a start-up that waits for all). */
  public boolean allReady() {
    return !components.isEmpty() && components.values().stream().allMatch(Component::ready);
  }

  /** Component name to state, in name order. */
  public Map<String, Component> snapshot() {
    Map<String, Component> sorted = new LinkedHashMap<>();
    components.keySet().stream().sorted().forEach(k -> sorted.put(k, components.get(k)));
    return sorted;
  }

  /**
   * Publishes {@code playline.health{component}} (1 ready, 0 not) for every component, declared
   * now or later, to {@code registry}.
   */
  public void bindTo(MeterRegistry registry) {
    this.registry = registry;
    components.keySet().forEach(c -> gauge(registry, c));
  }

  private void gauge(MeterRegistry registry, String component) {
    Gauge.builder("playline.health", this, r -> {
      Component c = r.components.get(component);
      return c != null && c.ready() ? 1 : 0;
    }).tag("component", component).strongReference(true)
        .description("1 while the component is ready (see /readyz: required ones gate readiness)").register(registry);
  }
}
