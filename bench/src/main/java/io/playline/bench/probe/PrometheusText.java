package io.playline.bench.probe;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One scrape of a Prometheus text exposition: every sample by its full series name (metric name
 * plus labels exactly as exposed, e.g. {@code jvm_memory_used_bytes{area="heap",id="PS Eden Space"}}).
 * Immutable.
 */
public final class PrometheusText {
  private final Map<String, Double> samples;

  private PrometheusText(Map<String, Double> samples) {
    this.samples = Collections.unmodifiableMap(samples);
  }

  public static PrometheusText empty() {
    return new PrometheusText(Map.of());
  }

  /** Parses the text format; comments, blank lines and unparsable samples are skipped. */
  public static PrometheusText parse(String text) {
    Map<String, Double> samples = new LinkedHashMap<>();
    for (String line : text.split("\n")) {
      String l = line.trim();
      if (l.isEmpty() || l.startsWith("#")) {
        continue;
      }
      // The value follows the series: after the closing brace if there are labels, else after the name.
      int close = l.lastIndexOf('}');
      int space = l.indexOf(' ', close < 0 ? 0 : close);
      if (space < 0) {
        continue;
      }
      String series = l.substring(0, space);
      String rest = l.substring(space + 1).trim();
      int end = rest.indexOf(' ');
      String value = end < 0 ? rest : rest.substring(0, end);
      try {
        samples.put(series, Double.parseDouble(value));
      } catch (NumberFormatException e) {
        // e.g. a timestamp-only oddity: skip the sample.
      }
    }
    return new PrometheusText(samples);
  }

  public Map<String, Double> samples() {
    return samples;
  }

  /** Whether the text has any series of metric {@code name}. */
  public boolean has(String name) {
    return samples.keySet().stream().anyMatch(series -> metric(series).equals(name));
  }

  /** A series' metric name: the key up to its labels. */
  private static String metric(String series) {
    int brace = series.indexOf('{');
    return brace < 0 ? series : series.substring(0, brace);
  }

  /**
   * The sum of every series of metric {@code name} whose labels contain all of {@code labels}
   * (each {@code key="value"}); 0 when there is none.
   */
  public double sum(String name, String... labels) {
    double total = 0;
    for (Map.Entry<String, Double> e : samples.entrySet()) {
      String series = e.getKey();
      int brace = series.indexOf('{');
      if (!metric(series).equals(name)) {
        continue;
      }
      boolean all = true;
      for (String label : labels) {
        if (brace < 0 || !containsLabel(series.substring(brace), label)) {
          all = false;
          break;
        }
      }
      if (all && !e.getValue().isNaN()) {
        total += e.getValue();
      }
    }
    return total;
  }

  private static boolean containsLabel(String labels, String label) {
    int i = labels.indexOf(label);
    while (i >= 0) {
      char before = labels.charAt(i - 1);
      if (before == '{' || before == ',') {
        return true;
      }
      i = labels.indexOf(label, i + 1);
    }
    return false;
  }

  /**
   * The {@code q} quantile (0..1) of histogram {@code name} (its {@code name_bucket} series whose
   * labels contain all of {@code labels}) over what was observed between {@code earlier} and this
   * scrape: the upper bound of the first bucket whose count reaches {@code q} of the window's
   * observations, in the histogram's unit; NaN when nothing was observed.
   */
  public double quantileSince(PrometheusText earlier, double q, String name, String... labels) {
    java.util.TreeMap<Double, Double> counts = new java.util.TreeMap<>();
    String bucket = name + "_bucket";
    for (String series : samples.keySet()) {
      int brace = series.indexOf('{');
      if (brace < 0 || !series.substring(0, brace).equals(bucket)) {
        continue;
      }
      String labelText = series.substring(brace);
      boolean all = true;
      for (String label : labels) {
        all &= containsLabel(labelText, label);
      }
      int le = labelText.indexOf(",le=\"");
      le = le >= 0 ? le : labelText.startsWith("{le=\"") ? 0 : -1;
      if (!all || le < 0) {
        continue;
      }
      String bound = labelText.substring(le + 5, labelText.indexOf('"', le + 5));
      double upper = bound.equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(bound);
      counts.merge(upper, samples.get(series) - earlier.samples.getOrDefault(series, 0.0), Double::sum);
    }
    if (counts.isEmpty() || !(counts.lastEntry().getValue() > 0)) {
      return Double.NaN;
    }
    double wanted = q * counts.lastEntry().getValue();
    for (Map.Entry<Double, Double> e : counts.entrySet()) {
      if (e.getValue() >= wanted) {
        return e.getKey();
      }
    }
    return Double.POSITIVE_INFINITY;
  }

  /** {@code sum(name, labels)} here minus the same in {@code earlier}. */
  public double delta(PrometheusText earlier, String name, String... labels) {
    return sum(name, labels) - earlier.sum(name, labels);
  }
}
