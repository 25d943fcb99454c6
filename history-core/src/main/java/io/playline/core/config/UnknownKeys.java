package io.playline.core.config;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * Refuses configuration keys no setting reads: a misspelled {@code ws.prot} or {@code auth.secrte}
 * would otherwise be ignored and the default served, found out in production. Every key a layer
 * set (file, {@code PLAYLINE_*} environment, {@code playline.*} system property, {@code --set}) must
 * be a key of some catalogue, or under a prefix setting ({@code kafka.producer.}), or be named in
 * {@code config.unknown.keys.allowed} (a key of a newer version, accepted on purpose). The refusal
 * names the key, where it was set and the closest known key. Stateless.
 */
public final class UnknownKeys {
  /**
   * Keys of variables that the launcher ({@code bin/playline}: {@code PLAYLINE_SKIP_BUILD}, {@code
   * PLAYLINE_JAVA_OPTS}, {@code PLAYLINE_NETTY_LEAK_DETECTION}), the embedded servers ({@code
   * -Dplayline.embedded.exitWithParent}), the CLI tools ({@code PLAYLINE_API_ADDRESS}, {@code
   * PLAYLINE_GATEWAY_ADDRESS}, ...) and the client-js tests ({@code PLAYLINE_SKIP_BROWSER}, {@code
   * PLAYLINE_CHROMIUM}, {@code PLAYLINE_TEST_ENDPOINTS}; the standalone they start inherits their
   * environment) read themselves: never settings, never refused.
   */
  static final Set<String> LAUNCHER = Set.of("skip.build", "java.opts", "netty.leak.detection", "bench.secret",
      "api.address", "api.token", "api.tls.ca", "admin.url", "gateway.address", "embedded.exitwithparent",
      "skip.browser", "chromium", "test.endpoints");

  public static final Setting<String> ALLOWED = Setting.string("config.unknown.keys.allowed", "",
      "comma-separated keys accepted although no setting reads them (for example a key of a newer version in a "
          + "shared file); any other unknown key refuses start-up, naming the closest known key");

  /** The catalogue of {@link #ALLOWED}. */
  public static final SettingsCatalogue CATALOGUE = new SettingsCatalogue("Configuration", List.of(ALLOWED));

  private UnknownKeys() {}

  /**
   * Throws a {@link ConfigException} naming the first unknown key of {@code source} (and how many
   * others there are), with the closest key of {@code catalogues}.
   */
  public static void check(ConfigSource source, Collection<SettingsCatalogue> catalogues) {
    Set<String> known = new TreeSet<>(LAUNCHER);
    List<String> prefixes = new ArrayList<>();
    known.add(ALLOWED.key());
    for (SettingsCatalogue c : catalogues) {
      for (Setting<?> s : c.settings()) {
        if (s.kind() == Setting.Kind.PREFIX) {
          prefixes.add(normalize(s.key()));
        } else {
          known.add(normalize(s.key()));
        }
      }
    }
    Set<String> allowed = new TreeSet<>();
    for (String a : ALLOWED.read(source).split(",")) {
      if (!a.isBlank()) {
        allowed.add(normalize(a));
      }
    }
    Map<String, String> origins = source.describe(); // every key set, normalized, in key order
    List<String> unknown = new ArrayList<>();
    for (String key : origins.keySet()) {
      if (known.contains(key) || allowed.contains(key) || key.endsWith(".java.opts")
          || prefixes.stream().anyMatch(p -> key.startsWith(p) && key.length() > p.length())) {
        continue;
      }
      unknown.add(key);
    }
    if (unknown.isEmpty()) {
      return;
    }
    String first = unknown.get(0);
    String closest = closest(first, known);
    throw new ConfigException("unknown config key '" + first + "' (" + origins.get(first) + ")"
        + (closest == null ? "" : "; did you mean '" + closest + "'?")
        + (unknown.size() > 1 ? "; " + (unknown.size() - 1) + " more unknown: " + unknown.subList(1, unknown.size())
            : "")
        + ". Every key is listed in docs/configuration.md; to accept a key no setting reads, name it in "
        + ALLOWED.key());
  }

  private static String normalize(String key) {
    return key.trim().toLowerCase(Locale.ROOT).replace('-', '.').replace('_', '.');
  }

  /** The known key nearest to {@code key} by edit distance, if near enough to be a typo. */
  static @Nullable String closest(String key, Collection<String> known) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String k : known) {
      int d = distance(key, k);
      if (d < bestDistance) {
        bestDistance = d;
        best = k;
      }
    }
    return best != null && bestDistance <= Math.max(2, key.length() / 3) ? best : null;
  }

  /** Levenshtein distance. */
  static int distance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }
}
