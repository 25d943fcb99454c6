package io.playline.standalone;

import io.playline.core.config.Setting;
import io.playline.core.config.SettingsCatalogue;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code config/playline.properties.example} of the distribution, generated from the same setting
 * definitions as docs/configuration.md ({@link ConfigurationDocs#catalogues()}): every key commented
 * out at its default, under its meaning, environment variable and range, so an operator uncomments
 * what they change. {@code bin/playline config-docs --format properties} prints it; {@code
 * ConfigurationDocsTest} fails while the checked-in copy ({@link #PATH}) differs.
 */
public final class PropertiesExample {
  /** The checked-in copy, relative to the repository root; the distribution ships it as config/playline.properties.example. */
  public static final String PATH = "dist/src/config/playline.properties.example";
  /** The command that regenerates it, from the repository root. */
  public static final String REGENERATE = "bin/playline config-docs --format properties > " + PATH;
  private static final int WIDTH = 100;

  private PropertiesExample() {}

  /** The whole file. */
  public static String render() {
    StringBuilder b = new StringBuilder();
    b.append("# Playline configuration: every key at its default, commented out. Uncomment what you change.\n")
        .append("# Generated from the setting definitions (").append(REGENERATE).append(");\n")
        .append("# the reference with the same keys is docs/configuration.md.\n")
        .append("#\n")
        .append("# Pass this file with --config FILE (or $PLAYLINE_CONFIG; ./playline.properties is read when present).\n")
        .append("# Every key can also be set as an environment variable (PLAYLINE_ + the key upper-cased, '.' as '_'),\n")
        .append("# a system property (-Dplayline.<key>) or --set key=value; later wins in that order. Durations take\n")
        .append("# a unit (500ms, 10s, 5m, 1h, 90d); a value out of range stops start-up naming the key.\n");
    for (SettingsCatalogue catalogue : ConfigurationDocs.catalogues()) {
      b.append("\n\n# ").append("=".repeat(WIDTH - 2)).append('\n')
          .append("# ").append(catalogue.title()).append('\n')
          .append("# ").append("=".repeat(WIDTH - 2)).append('\n');
      for (Setting<?> s : catalogue.settings()) {
        b.append('\n');
        entry(b, s);
      }
    }
    return b.toString();
  }

  private static void entry(StringBuilder b, Setting<?> s) {
    for (String line : wrap(s.description(), WIDTH - 2)) {
      b.append("# ").append(line).append('\n');
    }
    String range = s.documentedRange();
    StringBuilder facts = new StringBuilder("env ").append(s.env());
    if (s.isDerived() || s.exampleValue().isEmpty()) {
      facts.append("; default: ").append(s.documentedDefault());
    }
    if (!range.isEmpty()) {
      facts.append("; range: ").append(range);
    }
    for (String line : wrap(facts.toString(), WIDTH - 2)) {
      b.append("# ").append(line).append('\n');
    }
    b.append('#').append(s.documentedKey()).append('=').append(s.exampleValue().orElse("")).append('\n');
  }

  /** {@code text} in lines of at most {@code width} characters, broken at spaces. */
  static List<String> wrap(String text, int width) {
    List<String> lines = new ArrayList<>();
    StringBuilder line = new StringBuilder();
    for (String word : text.strip().split("\\s+")) {
      if (line.length() > 0 && line.length() + 1 + word.length() > width) {
        lines.add(line.toString());
        line.setLength(0);
      }
      line.append(line.length() > 0 ? " " : "").append(word);
    }
    if (line.length() > 0) {
      lines.add(line.toString());
    }
    return lines;
  }
}
