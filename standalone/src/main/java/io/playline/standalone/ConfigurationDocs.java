package io.playline.standalone;

import io.playline.api.config.ApiSettings;
import io.playline.core.config.CoreSettings;
import io.playline.core.config.FirstTodaySettings;
import io.playline.core.config.KafkaSettings;
import io.playline.core.config.QuerySettings;
import io.playline.core.config.Setting;
import io.playline.core.config.SettingsCatalogue;
import io.playline.core.config.WriteBackSettings;
import io.playline.gateway.config.AuthSettings;
import io.playline.gateway.config.GatewaySettings;
import io.playline.gateway.config.LimitSettings;
import io.playline.job.config.JobSettings;
import io.playline.node.RequestSettings;
import io.playline.node.edge.EdgeSettings;
import io.playline.node.push.PushSettings;
import io.playline.node.settings.NodeSettings;
import io.playline.node.write.BatchSettings;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * docs/configuration.md, generated from the setting definitions: the template's prose (intro,
 * limits, metrics, first-today delivery) around one table per {@link SettingsCatalogue}, so every
 * key the code reads is listed with the default and range the code applies. {@code bin/playline
 * config-docs > docs/configuration.md} regenerates the file; {@code ConfigurationDocsTest} fails
 * while the checked-in one differs.
 */
public final class ConfigurationDocs {
  /** The command that regenerates the file, from the repository root. */
  public static final String REGENERATE = "bin/playline config-docs > docs/configuration.md";
  /** The prose around the tables: a resource next to this class. */
  static final String TEMPLATE = "configuration.template.md";
  /** The template's line that the tables replace. */
  static final String TABLES = "{{settings}}";

  private ConfigurationDocs() {}

  /** Every catalogue of every module, in the order the reference lists them. */
  public static List<SettingsCatalogue> catalogues() {
    return List.of(StandaloneSettings.CATALOGUE, NodeSettings.CATALOGUE, EdgeSettings.CATALOGUE, RequestSettings.CATALOGUE,
        GatewaySettings.CATALOGUE, AuthSettings.CATALOGUE, LimitSettings.CATALOGUE, BatchSettings.CATALOGUE, PushSettings.CATALOGUE,
        ApiSettings.CATALOGUE, CoreSettings.CATALOGUE, WriteBackSettings.CATALOGUE, FirstTodaySettings.CATALOGUE, KafkaSettings.CATALOGUE, QuerySettings.CATALOGUE,
        JobSettings.CATALOGUE, io.playline.core.config.UnknownKeys.CATALOGUE);
  }

  /** The whole of docs/configuration.md. */
  public static String render() {
    String template = template();
    if (!template.contains(TABLES)) {
      throw new IllegalStateException(TEMPLATE + " has no " + TABLES + " line");
    }
    List<SettingsCatalogue> catalogues = catalogues();
    String index = catalogues.stream()
        .map(c -> "[" + c.title() + "](#" + anchor(c.title()) + ")")
        .collect(Collectors.joining(" · ", "Keys by area: ", "."));
    String tables = catalogues.stream().map(ConfigurationDocs::table).collect(Collectors.joining("\n"));
    return template.replace(TABLES, index + "\n\n" + tables.stripTrailing());
  }

  /** One catalogue's section: its heading and a row per key. */
  static String table(SettingsCatalogue catalogue) {
    StringBuilder b = new StringBuilder("## ").append(catalogue.title()).append("\n\n")
        .append("| key | env | default | range | meaning |\n")
        .append("|---|---|---|---|---|\n");
    for (Setting<?> s : catalogue.settings()) {
      b.append("| `").append(s.documentedKey()).append("` | `").append(s.env()).append("` | ")
          .append(cell(s.documentedDefault())).append(" | ").append(cell(s.documentedRange())).append(" | ")
          .append(cell(s.description())).append(" |\n");
    }
    return b.toString();
  }

  /** A table cell: a pipe would end it. */
  private static String cell(String markdown) {
    return markdown.replace("|", "\\|");
  }

  /** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as dashes. */
  static String anchor(String heading) {
    return heading.trim().toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
  }

  private static String template() {
    try (InputStream in = ConfigurationDocs.class.getResourceAsStream(TEMPLATE)) {
      return new String(Objects.requireNonNull(in, TEMPLATE).readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Prints docs/configuration.md, as {@code bin/playline config-docs} does. */
  public static void main(String[] args) {
    System.out.print(render());
    System.out.flush();
  }
}
