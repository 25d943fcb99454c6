package io.playline.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every configuration key the production code reads through {@code ConfigSource} with a literal
 * name is documented in {@code docs/configuration.md} (in backticks, as the tables write it). A key
 * read under a prefix ({@code withPrefix("kafka.common.")}) needs the prefix documented.
 */
class ConfigurationDocsTest {
  /** {@code c.duration("a.b", ...)}, {@code source.intValue("a.b", ...)}, {@code c.withPrefix("a.")}. */
  private static final Pattern READ =
      Pattern.compile("\\.(raw|string|bool|intValue|longValue|port|duration|zone|withPrefix)\\(\\s*\"([a-z0-9][a-z0-9._-]*)\"");

  private static Path root() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null && !Files.exists(dir.resolve("docs/configuration.md"))) {
      dir = dir.getParent();
    }
    assertThat(dir).as("the repository root, above " + Path.of("").toAbsolutePath()).isNotNull();
    return dir;
  }

  static Set<String> keysReadByTheCode(Path root) throws IOException {
    Set<String> keys = new TreeSet<>();
    try (Stream<Path> modules = Files.list(root)) {
      for (Path main : modules.map(m -> m.resolve("src/main/java")).filter(Files::isDirectory).toList()) {
        try (Stream<Path> files = Files.walk(main)) {
          for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
            Matcher m = READ.matcher(read(file));
            while (m.find()) {
              keys.add(m.group(2));
            }
          }
        }
      }
    }
    return keys;
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void everyKeyTheCodeReadsIsDocumented() throws IOException {
    Path root = root();
    Set<String> keys = keysReadByTheCode(root);
    // The scan itself must work: the code reads well over 90 literal keys.
    assertThat(keys).hasSizeGreaterThan(90).contains("writeback.flush.interval", "node.id");
    String docs = Files.readString(root.resolve("docs/configuration.md"));

    List<String> undocumented = keys.stream()
        .filter(k -> !docs.contains(k.endsWith(".") ? "`" + k : "`" + k + "`"))
        .toList();

    assertThat(undocumented).as("keys read by the code but missing from docs/configuration.md").isEmpty();
  }
}
