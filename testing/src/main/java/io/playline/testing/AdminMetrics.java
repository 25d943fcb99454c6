package io.playline.testing;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Arrays;

/** Reads a node's admin port over real HTTP: statuses and Prometheus samples of {@code /metrics}. */
public final class AdminMetrics {
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private AdminMetrics() {}

  /** The HTTP status of {@code path} on the admin port at {@code admin} (e.g. {@code http://127.0.0.1:PORT}). */
  public static int status(String admin, String path) throws IOException, InterruptedException {
    return HTTP.send(HttpRequest.newBuilder(URI.create(admin + path)).timeout(Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.discarding()).statusCode();
  }

  /** The sum of every sample of {@code name} (all label sets); fails if there is none. */
  public static double gauge(String admin, String name) throws IOException, InterruptedException {
    return sum(admin, name, name + " ", name + "{");
  }

  /**
   * The sum of the samples whose line starts with {@code prefix}, e.g. a name and its first label
   * ({@code playline_errors_total{code="RATE_LIMITED"}); fails if there is none.
   */
  public static double samples(String admin, String prefix) throws IOException, InterruptedException {
    return sum(admin, prefix, prefix);
  }

  private static double sum(String admin, String name, String... prefixes) throws IOException, InterruptedException {
    HttpResponse<String> scrape = HTTP.send(HttpRequest.newBuilder(URI.create(admin + "/metrics"))
        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    double sum = 0;
    boolean found = false;
    for (String line : scrape.body().split("\n")) {
      if (Arrays.stream(prefixes).anyMatch(line::startsWith)) {
        sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
        found = true;
      }
    }
    if (!found) {
      throw new IllegalStateException(admin + " (HTTP " + scrape.statusCode() + ") has no metric " + name);
    }
    return sum;
  }
}
