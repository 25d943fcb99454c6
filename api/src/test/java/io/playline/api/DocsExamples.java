package io.playline.api;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The shell examples of a Markdown page, and running them the way a reader pastes them: its
 * {@code sh} blocks in page order, each command with the answer the page shows under it (a line
 * starting {@code # →}); lines ending in a backslash continue the command, other comments are
 * skipped.
 */
final class DocsExamples {
  static final String ANSWER = "# → ";
  private static final String FENCE = "```";

  /** One command, at {@code line} of the page, with the answer the page shows (null: none). */
  record Command(int line, String text, @Nullable String answer) {}

  /** An {@code sh} block starting at {@code line}. */
  record Block(int line, List<Command> commands) {
    boolean uses(String tool) {
      return commands.stream().anyMatch(c -> c.text().startsWith(tool + " ") || c.text().contains("| " + tool + " "));
    }
  }

  /** What one command did: its exit status, standard output and standard error. */
  record Outcome(Command command, int exit, String out, String err) {
    String describe() {
      return "line " + command.line() + ": " + command.text() + "\nexit " + exit + "\nstdout: " + out + "\nstderr: " + err;
    }
  }

  private DocsExamples() {}

  /** The info string of every fenced block of {@code page} ("" for none), in page order. */
  static List<String> fenceLanguages(Path page) throws IOException {
    List<String> languages = new ArrayList<>();
    boolean inside = false;
    for (String line : Files.readAllLines(page)) {
      if (line.startsWith(FENCE)) {
        if (!inside) {
          languages.add(line.substring(FENCE.length()).trim());
        }
        inside = !inside;
      }
    }
    return languages;
  }

  /** The {@code sh} blocks of {@code page}, in page order. */
  static List<Block> read(Path page) throws IOException {
    List<String> lines = Files.readAllLines(page);
    List<Block> blocks = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      if (!lines.get(i).equals(FENCE + "sh")) {
        continue;
      }
      int start = i + 1;
      List<Command> commands = new ArrayList<>();
      StringBuilder text = null;
      int textLine = 0;
      for (i = start; !lines.get(i).startsWith(FENCE); i++) {
        String line = lines.get(i);
        if (text == null && line.startsWith(ANSWER) && !commands.isEmpty()) {
          Command last = commands.remove(commands.size() - 1);
          commands.add(new Command(last.line(), last.text(), line.substring(ANSWER.length()).trim()));
        } else if (text == null && (line.isBlank() || line.startsWith("#"))) {
          continue;
        } else {
          if (text == null) {
            text = new StringBuilder();
            textLine = i + 1;
          }
          boolean continues = line.endsWith("\\");
          text.append(continues ? line.substring(0, line.length() - 1) : line);
          if (!continues) {
            commands.add(new Command(textLine, text.toString().trim(), null));
            text = null;
          }
        }
      }
      blocks.add(new Block(start, commands));
    }
    return blocks;
  }

  /**
   * Runs {@code block}'s commands one after another in one bash (so an {@code export} reaches the
   * later ones), in {@code dir} with {@code env} added, each command's {@code localhost:PORT} text
   * replaced through {@code ports}; at most 2 minutes for the block.
   */
  static List<Outcome> run(Block block, Path dir, Map<String, String> env, Map<String, String> ports)
      throws IOException, InterruptedException {
    Path results = Files.createTempDirectory(dir, "block-" + block.line() + "-");
    StringBuilder script = new StringBuilder("set -o pipefail\n");
    List<Command> commands = block.commands();
    for (int n = 0; n < commands.size(); n++) {
      String text = commands.get(n).text();
      for (Map.Entry<String, String> p : ports.entrySet()) {
        text = text.replace(p.getKey(), p.getValue());
      }
      if (text.contains("localhost")) {
        throw new IllegalStateException("line " + commands.get(n).line() + " names a host the test does not serve: "
            + text);
      }
      Path base = results.resolve(Integer.toString(n));
      script.append("{ ").append(text).append("\n} >'").append(base).append(".out' 2>'").append(base)
          .append(".err'\necho $? >'").append(base).append(".rc'\n");
    }
    Path file = results.resolve("block.sh");
    Files.writeString(file, script);
    ProcessBuilder builder = new ProcessBuilder("bash", file.toString()).directory(dir.toFile())
        .redirectErrorStream(true).redirectOutput(results.resolve("bash.log").toFile());
    builder.environment().putAll(env);
    Process bash = builder.start();
    if (!bash.waitFor(2, TimeUnit.MINUTES)) {
      bash.destroyForcibly();
      throw new IllegalStateException("the block at line " + block.line() + " did not finish in 2 minutes");
    }
    List<Outcome> outcomes = new ArrayList<>();
    for (int n = 0; n < commands.size(); n++) {
      Path base = results.resolve(Integer.toString(n));
      outcomes.add(new Outcome(commands.get(n), Integer.parseInt(read(base, ".rc").trim()), read(base, ".out"),
          read(base, ".err")));
    }
    return outcomes;
  }

  private static String read(Path base, String suffix) throws IOException {
    return Files.readString(base.resolveSibling(base.getFileName() + suffix), StandardCharsets.UTF_8);
  }
}
