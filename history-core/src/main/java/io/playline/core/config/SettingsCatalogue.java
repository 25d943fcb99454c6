package io.playline.core.config;

import java.util.List;

/**
 * The definitions of one area's keys, in the order the reference lists them: one table of
 * docs/configuration.md under {@code title}. Every class that defines {@link Setting}s (such as
 * {@link CoreSettings}) exposes its catalogue as {@code CATALOGUE}. Immutable.
 *
 * @param title the section's heading
 * @param settings the definitions, in the reference's order
 */
public record SettingsCatalogue(String title, List<Setting<?>> settings) {
  public SettingsCatalogue {
    settings = List.copyOf(settings);
  }
}
