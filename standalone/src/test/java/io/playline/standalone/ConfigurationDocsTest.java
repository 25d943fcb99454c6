package io.playline.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import io.playline.core.config.ConfigException;
import io.playline.core.config.ConfigSource;
import io.playline.core.config.CoreConfig;
import io.playline.core.config.CoreSettings;
import io.playline.core.config.FirstTodaySettings;
import io.playline.core.config.Setting;
import io.playline.core.config.SettingsCatalogue;
import io.playline.core.config.WriteBackSettings;
import io.playline.gateway.config.GatewayConfig;
import io.playline.gateway.config.GatewaySettings;
import io.playline.gateway.config.LimitSettings;
import io.playline.job.config.JobConfig;
import io.playline.job.config.JobSettings;
import io.playline.node.NodeConfig;
import io.playline.roles.Secrets;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * docs/configuration.md is generated from the setting definitions ({@link ConfigurationDocs}), and
 * the production code reads every key through a definition: a source scan finds keys read by a
 * literal name ({@code c.duration("a.b", ...)}, or a helper handed the source and a literal, {@code
 * path(c, "a.b")}) and definitions missing from the catalogues, which the reference would not list.
 */
class ConfigurationDocsTest {
  /** {@code c.duration("a.b", ...)}, {@code source.raw("a.b")}, {@code c.withPrefix("a.")}; not a definition. */
  private static final Pattern READ = Pattern.compile("(?<!Setting)\\.(raw|string|bool|intValue|longValue|port|duration"
      + "|zone|withPrefix)\\(\\s*\"([a-z0-9][a-z0-9._-]*)\"");
  /** {@code Setting.duration("a.b", ...)}: a definition. */
  private static final Pattern DEFINITION = Pattern.compile("\\bSetting\\.(string|optional|secret|bool|intValue|bytes"
      + "|longValue|port|duration|zone|prefix)\\(\\s*\"([^\"]+)\"");
  /** {@code ConfigSource c}: the names a file gives its sources. */
  private static final Pattern SOURCE_VARIABLE = Pattern.compile("\\bConfigSource\\s+(\\w+)\\b");

  /** A literal key a production source reads, and where. */
  record Read(String key, String where) {}

  private static Path root() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null && !Files.exists(dir.resolve("docs/configuration.md"))) {
      dir = dir.getParent();
    }
    assertThat(dir).as("the repository root, above " + Path.of("").toAbsolutePath()).isNotNull();
    return dir;
  }

  private static List<Setting<?>> definitions() {
    return ConfigurationDocs.catalogues().stream().flatMap(c -> c.settings().stream()).toList();
  }

  /** Every production Java source of every module, by path relative to the root. */
  private static Map<Path, String> productionSources(Path root) throws IOException {
    Map<Path, String> sources = new java.util.TreeMap<>();
    try (Stream<Path> modules = Files.list(root)) {
      for (Path main : modules.map(m -> m.resolve("src/main/java")).filter(Files::isDirectory).toList()) {
        try (Stream<Path> files = Files.walk(main)) {
          for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
            sources.put(root.relativize(file), read(file));
          }
        }
      }
    }
    return sources;
  }

  /** The keys {@code source} reads by a literal: directly, or through a helper given the source and the key. */
  static List<Read> literalReads(Path file, String source) {
    List<Read> reads = new ArrayList<>();
    Matcher m = READ.matcher(source);
    while (m.find()) {
      reads.add(new Read(m.group(2), file + ":" + line(source, m.start())));
    }
    Matcher v = SOURCE_VARIABLE.matcher(source);
    Set<String> variables = new TreeSet<>();
    while (v.find()) {
      variables.add(v.group(1));
    }
    for (String variable : variables) {
      Matcher h = Pattern.compile("[(,]\\s*" + variable + "\\s*,\\s*\"([a-z0-9][a-z0-9._-]*\\.[a-z0-9._-]*)\"")
          .matcher(source);
      while (h.find()) {
        reads.add(new Read(h.group(1), file + ":" + line(source, h.start())));
      }
    }
    return reads;
  }

  private static int line(String source, int offset) {
    return (int) source.substring(0, offset).chars().filter(c -> c == '\n').count() + 1;
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Whether a definition covers {@code key}: its own, a template's, or a prefix's. */
  private static boolean defined(String key, List<Setting<?>> definitions) {
    for (Setting<?> s : definitions) {
      String pattern = Pattern.quote(s.key()).replaceAll("<[^>]+>", "\\\\E[a-z0-9_.-]+\\\\Q");
      boolean prefix = s.kind() == Setting.Kind.PREFIX && key.startsWith(s.key());
      if (key.equals(s.key()) || key.matches(pattern) || prefix) {
        return true;
      }
    }
    return false;
  }

  @Test
  void docsAreGeneratedFromTheDefinitions() throws IOException {
    List<String> file = Files.readAllLines(root().resolve("docs/configuration.md"));
    List<String> generated = ConfigurationDocs.render().lines().toList();
    for (int i = 0; i < Math.max(file.size(), generated.size()); i++) {
      String had = i < file.size() ? file.get(i) : "<end of file>";
      String wanted = i < generated.size() ? generated.get(i) : "<end of file>";
      if (!had.equals(wanted)) {
        fail("docs/configuration.md is generated from the setting definitions and differs at line " + (i + 1)
            + ":\n  file:      " + had + "\n  generated: " + wanted
            + "\nRegenerate it: " + ConfigurationDocs.REGENERATE);
      }
    }
    assertThat(Files.readString(root().resolve("docs/configuration.md")))
        .as("docs/configuration.md (line ends); regenerate it: " + ConfigurationDocs.REGENERATE)
        .isEqualTo(ConfigurationDocs.render());
  }

  @Test
  void thePropertiesExampleIsGeneratedFromTheDefinitions() throws IOException {
    assertThat(Files.readString(root().resolve(PropertiesExample.PATH)))
        .as(PropertiesExample.PATH + " is generated; regenerate it: " + PropertiesExample.REGENERATE)
        .isEqualTo(PropertiesExample.render());
    StringWriter out = new StringWriter();
    assertThat(PlaylineCli.run(new PrintWriter(out), new PrintWriter(new StringWriter()), "config-docs", "--format",
        "properties")).isZero();
    assertThat(out.toString()).isEqualTo(PropertiesExample.render());
  }

  /** Uncommented as they stand, the example's values are each key's default, read back as the code reads it. */
  @Test
  void everyKeyOfThePropertiesExampleIsItsDefaultAndReadsBack() {
    java.util.Map<String, String> uncommented = new java.util.HashMap<>();
    for (String line : PropertiesExample.render().lines().toList()) {
      java.util.regex.Matcher m = java.util.regex.Pattern.compile("^#([a-z][a-z0-9.<>-]*)=(.*)$").matcher(line);
      if (m.matches()) {
        uncommented.put(m.group(1), m.group(2));
      }
    }
    io.playline.core.config.ConfigSource source = io.playline.core.config.ConfigSource.empty().with(uncommented);
    for (Setting<?> s : definitions()) {
      assertThat(uncommented).as("the example lists " + s.documentedKey()).containsKey(s.documentedKey());
      if (s.exampleValue().isPresent()) {
        assertThat(uncommented.get(s.key())).isEqualTo(s.exampleValue().get());
        assertThat(s.read(source)).as(s.key()).isEqualTo(s.defaultValue().orElseThrow());
      }
    }
  }

  @Test
  void theCliPrintsTheReference() {
    StringWriter out = new StringWriter();

    int exit = PlaylineCli.run(new PrintWriter(out), new PrintWriter(new StringWriter()), "config-docs");

    assertThat(exit).isZero();
    assertThat(out.toString()).isEqualTo(ConfigurationDocs.render());
  }

  @Test
  void noProductionSourceReadsAKeyByALiteral() throws IOException {
    List<Read> reads = new ArrayList<>();
    productionSources(root()).forEach((file, source) -> reads.addAll(literalReads(file, source)));

    assertThat(reads).as("keys read by a literal name: read them through their Setting definition (a *Settings "
        + "class; add one for a new key), so docs/configuration.md lists them").isEmpty();
  }

  @Test
  void literalReadsAreFound() {
    // The scan must see what it is looking for, or the test above could never fail.
    String source = """
        static Foo from(ConfigSource c) {
          return new Foo(c.duration("writeback.flush.interval", D, MIN, MAX), path(c, "tls.cert"),
              c.withPrefix("kafka.common."));
        }
        static final Setting<String> X = Setting.string("not.a.read", "d", "");
        """;

    assertThat(literalReads(Path.of("Foo.java"), source)).extracting(Read::key)
        .containsExactlyInAnyOrder("writeback.flush.interval", "tls.cert", "kafka.common.");
  }

  @Test
  void everyKeyReadOrDefinedInTheSourcesIsCatalogued() throws IOException {
    List<Setting<?>> definitions = definitions();
    Set<String> inSources = new TreeSet<>();
    productionSources(root()).forEach((file, source) -> {
      literalReads(file, source).forEach(r -> inSources.add(r.key()));
      Matcher m = DEFINITION.matcher(source);
      while (m.find()) {
        inSources.add(m.group(2));
      }
    });
    // The scan itself must work: the catalogues define well over 100 keys.
    assertThat(inSources).hasSizeGreaterThan(100).contains("writeback.flush.interval", "node.id", "kafka.common.");

    List<String> missing = inSources.stream().filter(k -> !defined(k, definitions)).toList();

    assertThat(missing).as("keys read or defined in the sources but in no catalogue of ConfigurationDocs.catalogues() "
        + "(docs/configuration.md would not list them)").isEmpty();
  }

  @Test
  void definitionsAreConsistent() {
    Set<String> keys = new HashSet<>();
    List<String> problems = new ArrayList<>();
    for (SettingsCatalogue catalogue : ConfigurationDocs.catalogues()) {
      if (catalogue.title().isBlank() || catalogue.settings().isEmpty()) {
        problems.add("catalogue '" + catalogue.title() + "': needs a title and settings");
      }
      for (Setting<?> s : catalogue.settings()) {
        if (!keys.add(s.key())) {
          problems.add(s.key() + ": defined twice");
        }
        if (!s.key().matches("[a-z0-9][a-z0-9.<>_-]*")) {
          problems.add(s.key() + ": not a dotted lower-case key");
        }
        if (s.description().isBlank()) {
          problems.add(s.key() + ": no description");
        }
        if (s.documentedDefault().isBlank()) {
          problems.add(s.key() + ": no documented default");
        }
        String range = outOfRange(s);
        if (range != null) {
          problems.add(s.key() + ": default " + range);
        }
      }
    }

    assertThat(problems).isEmpty();
  }

  /** Why the definition's default is outside its range, or null when it is inside (or either is unknown). */
  @SuppressWarnings("unchecked")
  private static <T> String outOfRange(Setting<T> s) {
    if (s.defaultValue().isEmpty() || s.min().isEmpty() || s.max().isEmpty()) {
      return null;
    }
    Comparable<Object> d = (Comparable<Object>) s.defaultValue().get();
    if (d.compareTo(s.min().get()) < 0 || d.compareTo(s.max().get()) > 0) {
      return d + " is outside " + s.min().get() + ".." + s.max().get();
    }
    return null;
  }

  @Test
  void anEmptySourceGivesTheDocumentedDefaults() {
    ConfigSource empty = ConfigSource.empty();
    String docs = ConfigurationDocs.render();

    assertThat(GatewaySettings.WS_PORT.read(empty)).isEqualTo(8080);
    assertThat(docs).contains("| `ws.port` | `PLAYLINE_WS_PORT` | 8080 | 0–65535 (0 = any free port) |");
    assertThat(WriteBackSettings.FLUSH_INTERVAL.read(empty)).isEqualTo(Duration.ofSeconds(60));
    assertThat(docs).contains("| `writeback.flush.interval` | `PLAYLINE_WRITEBACK_FLUSH_INTERVAL` | 1m | 1s–1h |");
    assertThat(CoreSettings.REDIS_KEY_PREFIX.read(empty)).isEqualTo("pl:");
    assertThat(docs).contains("| `redis.key.prefix` | `PLAYLINE_REDIS_KEY_PREFIX` | `pl:` |");
    assertThat(FirstTodaySettings.FLAG_ZONE.read(empty)).isEqualTo(ZoneId.of("UTC"));
    assertThat(StandaloneSettings.REDIS_URI.read(empty)).isEmpty();
    assertThat(docs).contains("| `kafka.common.<prop>` | `PLAYLINE_KAFKA_COMMON_<PROP>` | — |");

    // The config records apply the defaults, derived ones as their text says.
    CoreConfig core = CoreConfig.defaults();
    assertThat(core.flushInterval()).isEqualTo(WriteBackSettings.FLUSH_INTERVAL.defaultValue().orElseThrow());
    assertThat(core.maxPendingHardItems()).isEqualTo(4 * WriteBackSettings.MAX_PENDING.defaultValue().orElseThrow());
    assertThat(docs).contains("| 4 × `writeback.max.pending` |");
    JobConfig job = JobConfig.defaults();
    assertThat(job.recoveryAge()).isEqualTo(core.flushInterval().multipliedBy(3));
    assertThat(job.recoveryLeaseTtl())
        .isEqualTo(JobSettings.RECOVERY_INTERVAL.defaultValue().orElseThrow().multipliedBy(3));
    NodeConfig node = NodeConfig.from(empty);
    GatewayConfig gateway = GatewayConfig.from(empty, Secrets.DEV_SECRET);
    assertThat(gateway.idleTimeout())
        .isEqualTo(LimitSettings.HEARTBEAT_INTERVAL.defaultValue().orElseThrow().multipliedBy(3));
    assertThat(node.bindHost()).isEqualTo(node.admin().bindHost()).isEqualTo("0.0.0.0");
  }

  @Test
  void aSetValueIsValidatedByTheSource() {
    ConfigSource c = ConfigSource.empty().with(Map.of("ws.port", "99999", "idle.timeout", "2m"));

    assertThatThrownBy(() -> GatewaySettings.WS_PORT.read(c))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("ws.port: '99999'")
        .hasMessageContaining("0..65535")
        .hasMessageContaining("PLAYLINE_WS_PORT");
    assertThat(LimitSettings.IDLE_TIMEOUT.read(c, Duration.ofSeconds(45))).isEqualTo(Duration.ofMinutes(2));
  }
}
