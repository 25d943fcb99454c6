package io.playline.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The repository stands on its own: the README stays a newcomer's page (at most 12 KB), and every
 * link in the README, in {@code docs/} and its folders (the benchmark logs in {@code docs/benchmarks/})
 * and in the modules' READMEs points at a file of this repository that exists (and at a heading of
 * it, when it names one) — nothing outside it.
 */
class DocsLinksTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
  private static final Pattern HEADING = Pattern.compile("(?m)^#{1,6}\\s+(.+)$");

  @Test
  void theReadmeStaysShort() throws IOException {
    assertThat(Files.size(ROOT.resolve("README.md"))).as("README.md bytes").isLessThanOrEqualTo(12 * 1024);
  }

  @Test
  void everyLinkStaysInsideTheRepositoryAndResolves() throws IOException {
    List<String> broken = new ArrayList<>();
    int links = 0;
    for (Path doc : documents()) {
      String text = Files.readString(doc);
      Matcher m = LINK.matcher(text);
      while (m.find()) {
        links++;
        String target = m.group(1);
        String where = ROOT.relativize(doc) + ": " + target;
        if (target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
          broken.add(where + " (links outside the repository)");
          continue;
        }
        int hash = target.indexOf('#');
        String path = hash < 0 ? target : target.substring(0, hash);
        String anchor = hash < 0 ? null : target.substring(hash + 1);
        Path resolved = path.isEmpty() ? doc : doc.getParent().resolve(path).normalize();
        if (!resolved.startsWith(ROOT)) {
          broken.add(where + " (outside the repository)");
        } else if (!Files.exists(resolved)) {
          broken.add(where + " (no such file)");
        } else if (anchor != null && resolved.toString().endsWith(".md") && !anchors(resolved).contains(anchor)) {
          broken.add(where + " (no such heading)");
        }
      }
    }
    assertThat(links).isGreaterThan(30);
    assertThat(broken).as("links that do not resolve inside the repository").isEmpty();
  }

  private static List<Path> documents() throws IOException {
    List<Path> docs = new ArrayList<>();
    docs.add(ROOT.resolve("README.md"));
    try (Stream<Path> s = Files.walk(ROOT.resolve("docs"))) {
      s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
    }
    try (Stream<Path> s = Files.list(ROOT)) {
      s.filter(Files::isDirectory).map(d -> d.resolve("README.md")).filter(Files::exists).sorted().forEach(docs::add);
    }
    return docs;
  }

  /** GitHub's anchors of a Markdown file's headings: lower case, punctuation dropped, spaces as dashes. */
  private static Set<String> anchors(Path md) throws IOException {
    Set<String> anchors = new HashSet<>();
    Matcher m = HEADING.matcher(Files.readString(md));
    while (m.find()) {
      String slug = m.group(1).trim().toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
      anchors.add(slug);
    }
    return anchors;
  }
}
