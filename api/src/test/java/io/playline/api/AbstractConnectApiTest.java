package io.playline.api;

import io.playline.testing.HBaseNamespace;
import io.playline.testing.KafkaNamespace;
import io.playline.testing.RealHBaseExtension;
import io.playline.testing.RealKafkaExtension;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The History API's Connect port on a real api node ({@link TestApi}, started by each test with its
 * own settings and stopped after it), and the calls the tests make: POSTs with the JDK's HTTP
 * client, a JSON call with a service token, raw HTTP/1.1 requests and what a socket reads back.
 */
@ExtendWith({RealRedisExtension.class, RealKafkaExtension.class, RealHBaseExtension.class})
abstract class AbstractConnectApiTest {
  static final String HISTORY = "/playline.v1.History/";
  final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(10)).build();
  TestApi api;

  void start(RedisNamespace redis, KafkaNamespace kafka, HBaseNamespace hbase, Map<String, String> settings) {
    api = TestApi.start(redis, kafka, hbase, settings);
  }

  @AfterEach
  void stop() {
    if (api != null) {
      api.close();
    }
  }

  int port() {
    return api.api().httpAddress().getPort();
  }

  HttpResponse<String> post(String method, String contentType, byte[] body, String... headers) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port() + HISTORY + method))
        .timeout(Duration.ofSeconds(20)).header("Content-Type", contentType)
        .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    if (headers.length > 0) {
      b.headers(headers);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** A JSON call with a service token. */
  HttpResponse<String> json(String method, String body) throws Exception {
    return post(method, "application/json", body.getBytes(StandardCharsets.UTF_8), "Authorization", TestApi.bearer(),
        "Connect-Protocol-Version", "1");
  }

  static String event(String business, long oid, long progressMs) {
    return "{\"business\":\"" + business + "\",\"oid\":\"" + oid + "\",\"progressMs\":\"" + progressMs
        + "\",\"durationMs\":\"60000\",\"eventTimeMs\":\"" + System.currentTimeMillis() + "\"}";
  }

  /** A raw HTTP/1.1 request with a service token and {@code extraHeaders} (each ending in CRLF). */
  static String request(String method, String json, String extraHeaders) {
    return "POST " + HISTORY + method + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: "
        + TestApi.bearer() + "\r\n" + extraHeaders + "Content-Length: " + json.length() + "\r\n\r\n" + json;
  }

  double refused(String reason) {
    return api.node().registry().get("playline.api.http.refused").tag("reason", reason).counter().count();
  }

  /** Reads until {@code answers} HTTP status lines arrived. */
  static String readAtLeast(InputStream in, int answers) throws Exception {
    StringBuilder seen = new StringBuilder();
    byte[] buffer = new byte[4096];
    while (seen.toString().split("HTTP/1.1 ", -1).length - 1 < answers || !seen.toString().endsWith("}")) {
      int n = in.read(buffer);
      if (n < 0) {
        break;
      }
      seen.append(new String(buffer, 0, n, StandardCharsets.US_ASCII));
    }
    return seen.toString();
  }
}
