package io.playline.bench.probe;

import io.playline.time.Time;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Samples one measured server process: RSS and CPU time from {@code /proc} (when its pid is known)
 * and its Prometheus {@code /metrics} (when it has an admin URL). Thread-safe; every call is
 * bounded in time.
 *
 * @param name label in the report (e.g. {@code playline}, {@code gateway-2}, {@code echo}, {@code redis})
 * @param pid the process, or -1 when unknown
 * @param adminUrl {@code http://127.0.0.1:<port>}, or null when it serves no metrics
 */
public record ServerProbe(String name, long pid, @Nullable URI adminUrl) {
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();

  /** One sample; {@code rss}/{@code cpuNanos} are -1 and {@code metrics} empty when unavailable. */
  public record Sample(long nanos, long rss, long cpuNanos, PrometheusText metrics) {
    /** {@code jvm_memory_used_bytes{area="heap"}} summed over the pools. */
    public double heapUsed() {
      return metrics.sum("jvm_memory_used_bytes", "area=\"heap\"");
    }
  }

  public Sample sample() {
    PrometheusText metrics = PrometheusText.empty();
    if (adminUrl != null) {
      try {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(adminUrl.resolve("/metrics"))
            .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 200) {
          metrics = PrometheusText.parse(r.body());
        }
      } catch (IOException e) {
        // Reported as missing figures.
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    return new Sample(Time.SYSTEM.nanoTime(), pid > 0 ? ProcStats.rssBytes(pid) : -1,
        pid > 0 ? ProcStats.cpuNanos(pid) : -1, metrics);
  }

  /** Asks the JVM for a full GC ({@code jcmd <pid> GC.run}, at most 60 s) so heap figures show live data. */
  public boolean fullGc() {
    if (pid <= 0) {
      return false;
    }
    String jcmd = java.nio.file.Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
    try {
      Process p = new ProcessBuilder(jcmd, Long.toString(pid), "GC.run").redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return false;
      }
      return p.exitValue() == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
