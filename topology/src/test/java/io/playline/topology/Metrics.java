package io.playline.topology;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Reads a process's Prometheus metrics from its admin port. */
final class Metrics {
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private Metrics() {}

  /** The HTTP status of {@code path} on the process's admin port (e.g. 200 or 503 for {@code /readyz}). */
  static int status(RoleProcess process, String path) throws IOException, InterruptedException {
    return HTTP.send(HttpRequest.newBuilder(URI.create(process.address("admin") + path))
        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
  }

  /** The sum of every sample of {@code name} (all label sets); fails if there is none. */
  static double gauge(RoleProcess process, String name) throws IOException, InterruptedException {
    return sum(process, name, name + " ", name + "{");
  }

  /** The sum of the samples whose line starts with {@code prefix}, e.g. a name and its first label; fails if none. */
  static double samples(RoleProcess process, String prefix) throws IOException, InterruptedException {
    return sum(process, prefix, prefix);
  }

  private static double sum(RoleProcess process, String name, String... prefixes)
      throws IOException, InterruptedException {
    String body = HTTP.send(HttpRequest.newBuilder(URI.create(process.address("admin") + "/metrics"))
        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString()).body();
    double sum = 0;
    boolean found = false;
    for (String line : body.split("\n")) {
      if (java.util.Arrays.stream(prefixes).anyMatch(line::startsWith)) {
        sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
        found = true;
      }
    }
    if (!found) {
      throw new IllegalStateException(process.name() + " has no metric " + name);
    }
    return sum;
  }
}
