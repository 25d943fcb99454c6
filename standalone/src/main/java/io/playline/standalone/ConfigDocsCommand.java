package io.playline.standalone;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code playline config-docs}: prints docs/configuration.md, generated from the setting definitions. */
@Command(name = "config-docs", mixinStandardHelpOptions = true,
    description = "Print the configuration reference (every key, its env var, default, range and meaning), generated "
        + "from the setting definitions: " + ConfigurationDocs.REGENERATE)
final class ConfigDocsCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    out.print(ConfigurationDocs.render());
    out.flush();
    return 0;
  }
}
