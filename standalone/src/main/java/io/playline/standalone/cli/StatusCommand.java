package io.playline.standalone.cli;

import io.playline.time.Time;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code playline status [--admin URL]}: what an operator asks a node first, from its admin port:
 * readiness per component, open connections, heartbeats and acks per second (two scrapes of {@code
 * /metrics} an interval apart), ack latency p99, write-back pending against its limit, job lag and
 * queries per second. Exit 0 when the node is ready, 1 when it is not or cannot be reached.
 */
@Command(name = "status", mixinStandardHelpOptions = true,
    description = "Print a node's readiness, connections, heartbeats/s, ack p99, write-back pending and job lag, "
        + "read from its admin port (/readyz and two /metrics scrapes). Exit 0 when ready, 1 when not or unreachable.")
public final class StatusCommand implements Callable<Integer> {
  @Option(names = "--admin", paramLabel = "URL", description = "The node's admin URL (default: $PLAYLINE_ADMIN_URL, "
      + "else admin.port if configured, else the running standalone's endpoints.json in the data dir, else "
      + "http://127.0.0.1:9100).")
  @Nullable String adminOption;

  @Option(names = "--token", defaultValue = "${env:PLAYLINE_ADMIN_TOKEN}",
      description = "Bearer token for /metrics when the node sets admin.token (default: $PLAYLINE_ADMIN_TOKEN).")
  @Nullable String token;

  @Option(names = "--interval", defaultValue = "2s",
      description = "Time between the two scrapes the rates come from (default: ${DEFAULT-VALUE}).")
  String interval = "2s";

  @Mixin TargetOptions target = new TargetOptions();

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws InterruptedException {
    Duration between = io.playline.core.config.ConfigSource.parseDuration(interval)
        .filter(d -> !d.isZero() && d.compareTo(Duration.ofMinutes(5)) <= 0)
        .orElseThrow(() -> new IllegalArgumentException("--interval: '" + interval + "' (expected: e.g. 1s, 5s; at most 5m)"));
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    String admin = target.address(TargetNode.Port.ADMIN, adminOption, err);
    String base = admin.endsWith("/") ? admin.substring(0, admin.length() - 1) : admin;
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    try {
      HttpResponse<String> ready = get(http, base + "/readyz");
      Scrape first = scrape(http, base);
      long t0 = Time.SYSTEM.nanoTime();
      Thread.sleep(between.toMillis());
      Scrape second = scrape(http, base);
      double seconds = (Time.SYSTEM.nanoTime() - t0) / 1e9;
      print(out, base, ready, first, second, seconds);
      return ready.statusCode() == 200 ? 0 : 1;
    } catch (IOException | IllegalStateException e) {
      String unreachable = Unreachable.describe(e, "node's admin port", base, "start a node with `bin/playline "
          + "standalone` (or a role), or point at one with --admin URL or PLAYLINE_ADMIN_URL");
      err.println("playline: " + (unreachable != null ? unreachable : "cannot read " + base + ": " + e));
      return 1;
    }
  }

  private static void print(PrintWriter out, String base, HttpResponse<String> ready, Scrape a, Scrape b,
      double seconds) {
    String[] lines = ready.body().strip().split("\n");
    out.printf(Locale.ROOT, "node %s: %s%n", base, lines.length == 0 ? "?" : lines[0]);
    StringBuilder components = new StringBuilder();
    for (int i = 1; i < lines.length; i++) {
      components.append(i > 1 ? "; " : "").append(lines[i].strip());
    }
    row(out, "components", components.toString());
    if (b.has("playline_connections_open")) {
      row(out, "connections", String.format(Locale.ROOT, "%,.0f open", b.sum("playline_connections_open")));
      row(out, "heartbeats", String.format(Locale.ROOT, "%,.1f/s received, %,.1f/s acked, %,.1f/s failed or refused",
          rate(a, b, "playline_heartbeats_total", seconds), rate(a, b, "playline_heartbeat_acks_total", seconds),
          rate(a, b, "playline_heartbeat_failed_total", seconds) + rate(a, b, "playline_heartbeat_refused_total", seconds)));
      row(out, "ack p99", String.format(Locale.ROOT, "%s in the node (Redis round trip of a batch: %s)",
          millis(b.value("playline_heartbeat_ack_latency_seconds", "quantile=\"0.99\"")),
          millis(b.value("playline_heartbeat_batch_latency_seconds", "quantile=\"0.99\""))));
    }
    if (b.has("playline_writeback_pending")) {
      row(out, "write-back", String.format(Locale.ROOT, "%,.0f items pending (limit %,.0f), %,.1f Kafka records/s",
          b.sum("playline_writeback_pending"), b.sum("playline_writeback_pending_hard_limit"),
          rate(a, b, "playline_kafka_records_sent_total", seconds)));
    }
    if (b.has("playline_job_lag_seconds")) {
      row(out, "job lag", String.format(Locale.ROOT, "%,.1f s, %,.0f records; %,.1f records/s consumed, %,.0f partitions",
          b.sum("playline_job_lag_seconds"), b.sum("playline_job_lag_records"),
          rate(a, b, "playline_job_records_total", seconds), b.sum("playline_job_partitions_assigned")));
    }
    if (b.has("playline_query_requests_total")) {
      row(out, "queries", String.format(Locale.ROOT, "%,.1f/s", rate(a, b, "playline_query_requests_total", seconds)));
    }
    out.flush();
  }

  private static void row(PrintWriter out, String name, String value) {
    out.printf(Locale.ROOT, "  %-12s %s%n", name, value);
  }

  private static String millis(double seconds) {
    return Double.isNaN(seconds) ? "-" : String.format(Locale.ROOT, "%.2f ms", seconds * 1000);
  }

  private static double rate(Scrape a, Scrape b, String name, double seconds) {
    return Math.max(0, b.sum(name) - a.sum(name)) / seconds;
  }

  private Scrape scrape(HttpClient http, String base) throws IOException, InterruptedException {
    HttpResponse<String> r = get(http, base + "/metrics");
    if (r.statusCode() == 401) {
      throw new IllegalStateException("/metrics answered 401: pass the node's admin.token with --token");
    }
    if (r.statusCode() != 200) {
      throw new IllegalStateException("/metrics answered " + r.statusCode());
    }
    return Scrape.parse(r.body());
  }

  private HttpResponse<String> get(HttpClient http, String url) throws IOException, InterruptedException {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).GET();
    if (token != null && !token.isBlank() && url.endsWith("/metrics")) {
      b.header("Authorization", "Bearer " + token);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** One Prometheus text scrape: series (name plus labels) to value. */
  public record Scrape(Map<String, Double> series) {
    public static Scrape parse(String text) {
      Map<String, Double> series = new HashMap<>();
      for (String line : text.split("\n")) {
        if (line.isBlank() || line.startsWith("#")) {
          continue;
        }
        int space = line.lastIndexOf(' ');
        if (space > 0) {
          try {
            series.put(line.substring(0, space), Double.parseDouble(line.substring(space + 1)));
          } catch (NumberFormatException e) {
            // a value this reader does not know: skip the line
          }
        }
      }
      return new Scrape(series);
    }

    boolean has(String name) {
      return series.keySet().stream().anyMatch(k -> k.equals(name) || k.startsWith(name + "{"));
    }

    /** The sum over every series of {@code name}. */
    public double sum(String name) {
      double sum = 0;
      for (Map.Entry<String, Double> e : series.entrySet()) {
        if (e.getKey().equals(name) || e.getKey().startsWith(name + "{")) {
          sum += e.getValue();
        }
      }
      return sum;
    }

    /** The largest value of the series of {@code name} whose labels contain {@code label}; NaN when none. */
    double value(String name, String label) {
      double max = Double.NaN;
      for (Map.Entry<String, Double> e : series.entrySet()) {
        if (e.getKey().startsWith(name + "{") && e.getKey().contains(label)) {
          max = Double.isNaN(max) ? e.getValue() : Math.max(max, e.getValue());
        }
      }
      return max;
    }
  }
}
