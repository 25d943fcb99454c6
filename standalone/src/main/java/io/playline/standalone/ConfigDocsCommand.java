package io.playline.standalone;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code playline config-docs}: prints docs/configuration.md, or with {@code --format properties}
 * the distribution's commented {@code playline.properties.example}, both generated from the setting
 * definitions.
 */
@Command(name = "config-docs", mixinStandardHelpOptions = true,
    description = {"Print the configuration reference: every key, its env var, default, range and meaning.",
        "Generated from the setting definitions (the archive's docs/configuration.md is this output). With --format "
            + "properties: a properties file with every key commented out at its default, a starting point for "
            + "--config (e.g. bin/playline config-docs --format properties > playline.properties)."})
public final class ConfigDocsCommand implements Callable<Integer> {
  enum Format { markdown, properties }

  @Spec CommandSpec spec;

  @Option(names = "--format", defaultValue = "markdown", description = "markdown (the reference) or properties.")
  Format format = Format.markdown;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    out.print(format == Format.properties ? PropertiesExample.render() : ConfigurationDocs.render());
    out.flush();
    return 0;
  }
}
