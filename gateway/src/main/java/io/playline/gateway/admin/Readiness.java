package io.playline.gateway.admin;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What {@code /readyz} reports: a set of named components, each ready or not. Components flip
 * their own flag when they finish starting, lose a backend, or begin draining. Thread-safe;
 * reads never block.
 */
public final class Readiness {
  private final Map<String, Boolean> components = new ConcurrentHashMap<>();

  /** Declares a component, initially not ready. */
  public void register(String component) {
    components.putIfAbsent(component, false);
  }

  public void set(String component, boolean ready) {
    components.put(component, ready);
  }

  /** True when at least one component is registered and every registered one is ready. */
  public boolean isReady() {
    return !components.isEmpty() && components.values().stream().allMatch(Boolean::booleanValue);
  }

  /** Component name to readiness, in name order. */
  public Map<String, Boolean> snapshot() {
    Map<String, Boolean> sorted = new LinkedHashMap<>();
    components.keySet().stream().sorted().forEach(k -> sorted.put(k, components.get(k)));
    return sorted;
  }
}
