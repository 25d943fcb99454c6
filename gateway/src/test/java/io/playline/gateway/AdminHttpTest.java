package io.playline.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;

@ExtendWith(RealRedisExtension.class)
class AdminHttpTest {
  static TestGateway gateway;
  static final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void start(RedisNamespace ns) {
    gateway = new TestGateway(ns, Map.of());
  }

  @AfterAll
  static void stop() {
    gateway.close();
  }

  private static HttpResponse<String> get(String path) throws Exception {
    URI uri = URI.create("http://127.0.0.1:" + gateway.node.adminAddress().getPort() + path);
    return http.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void livezAndHealthzAnswerOkWhateverTheReadiness() throws Exception {
    gateway.readiness.register("probe");
    try {
      assertThat(get("/readyz").statusCode()).isEqualTo(503);
      assertThat(get("/livez").statusCode()).isEqualTo(200);
      assertThat(get("/healthz").statusCode()).isEqualTo(200);
    } finally {
      gateway.readiness.set("probe", true);
    }
  }

  @Test
  void readyzFollowsRequiredComponentsAndOnlyShowsReportedOnes() throws Exception {
    assertThat(get("/readyz").statusCode()).isEqualTo(200);
    gateway.readiness.report("kafka");
    gateway.readiness.set("kafka", false);
    HttpResponse<String> reported = get("/readyz");
    assertThat(reported.statusCode()).isEqualTo(200);
    assertThat(reported.body()).contains("kafka: not ready (reported, not required)");
    gateway.readiness.register("redis");
    try {
      HttpResponse<String> notReady = get("/readyz");
      assertThat(notReady.statusCode()).isEqualTo(503);
      assertThat(notReady.body()).contains("redis: not ready\n");
      assertThat(get("/metrics").body()).contains("playline_health{component=\"redis\"} 0.0")
          .contains("playline_health{component=\"kafka\"} 0.0");
    } finally {
      gateway.readiness.set("redis", true);
      gateway.readiness.set("kafka", true);
    }
    assertThat(get("/readyz").statusCode()).isEqualTo(200);
    assertThat(get("/metrics").body()).contains("playline_health{component=\"redis\"} 1.0");
  }

  @Test
  void metricsArePrometheusText() throws Exception {
    HttpResponse<String> metrics = get("/metrics");
    assertThat(metrics.statusCode()).isEqualTo(200);
    assertThat(metrics.headers().firstValue("content-type")).hasValueSatisfying(v -> assertThat(v).startsWith("text/plain"));
    assertThat(metrics.body()).contains("playline_auth_identity_checks_total").contains("playline_connections_open");
  }

  @Test
  void unknownPathIs404() throws Exception {
    assertThat(get("/nope").statusCode()).isEqualTo(404);
  }

  @Test
  void withAnAdminTokenMetricsNeedItOnTheAdminBindAddressWhileProbesStayOpen(RedisNamespace ns) throws Exception {
    String token = "admin-token-0123456789";
    try (TestGateway secured = new TestGateway(ns, Map.of("admin.bind.host", "127.0.0.2", "admin.token", token))) {
      assertThat(secured.node.adminAddress().getAddress().getHostAddress()).isEqualTo("127.0.0.2");
      assertThat(secured.server.wsAddress().getAddress().getHostAddress()).isEqualTo("127.0.0.1");
      String base = "http://127.0.0.2:" + secured.node.adminAddress().getPort();
      HttpResponse<String> anonymous = http.send(HttpRequest.newBuilder(URI.create(base + "/metrics")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(anonymous.statusCode()).isEqualTo(401);
      assertThat(anonymous.headers().firstValue("www-authenticate")).hasValue("Bearer realm=\"playline-admin\"");
      assertThat(anonymous.body()).doesNotContain("playline_");
      HttpResponse<String> wrong = http.send(HttpRequest.newBuilder(URI.create(base + "/metrics"))
          .header("Authorization", "Bearer " + token + "x").build(), HttpResponse.BodyHandlers.ofString());
      assertThat(wrong.statusCode()).isEqualTo(401);
      HttpResponse<String> bearer = http.send(HttpRequest.newBuilder(URI.create(base + "/metrics"))
          .header("Authorization", "Bearer " + token).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(bearer.statusCode()).isEqualTo(200);
      assertThat(bearer.body()).contains("playline_connections_open");
      for (String probe : new String[] {"/livez", "/readyz", "/healthz"}) {
        assertThat(http.send(HttpRequest.newBuilder(URI.create(base + probe)).build(),
            HttpResponse.BodyHandlers.ofString()).statusCode()).as(probe).isEqualTo(200);
      }
    }
  }

  @Test
  void aShortAdminTokenIsRefusedAtStart(RedisNamespace ns) {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> new TestGateway(ns, Map.of("admin.token", "short")))
        .isInstanceOf(io.playline.core.config.ConfigException.class)
        .hasMessageContaining("admin.token: 5 characters (expected: at least 16");
  }
}
