package io.playline.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.playline.core.config.ConfigSource;
import io.playline.gateway.session.JwtTokens;
import io.playline.proto.v1.Business;
import io.playline.roles.Secrets;
import io.playline.standalone.cli.StatusCommand;
import io.playline.testing.Frames;
import io.playline.testing.TestCertificates;
import io.playline.testing.WsPlayerClient;
import io.playline.time.Time;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The operator's artifacts against a real node: every metric (and every label value a query
 * selects) that the Grafana dashboard ({@code deploy/grafana/playline.json}) and the Prometheus
 * alert rules ({@code deploy/prometheus/alerts.yml}) query exists in a real {@code /metrics} scrape
 * of a standalone with TLS on, after a player, a query, a write-back flush and a job batch; the
 * rules parse ({@code promtool check rules} when promtool is installed, as {@code .ci/run} does, and
 * always a schema check); {@code bin/playline status} reads the node.
 */
class OperatorArtifactsTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Pattern METRIC = Pattern.compile("\\bplayline_[a-z0-9_]+");
  private static final Pattern SELECTOR = Pattern.compile("(playline_[a-z0-9_]+)\\s*\\{([^}]*)}");
  private static final Pattern MATCHER = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)\\s*=\\s*\"([^\"]*)\"");

  private static StandaloneLauncher launcher;
  private static String scrape;

  @BeforeAll
  static void start() throws Exception {
    Path dir = Path.of("target", "operator-" + UUID.randomUUID()).toAbsolutePath();
    Files.createDirectories(dir);
    TestCertificates.Issued ca = TestCertificates.authority(dir, "ca");
    TestCertificates.Issued cert = TestCertificates.server(dir, "node", ca);
    Map<String, String> values = new HashMap<>(Map.of(
        "data.dir", dir.resolve("data").toString(), "bind.host", "127.0.0.1",
        "ws.port", "0", "grpc.port", "0", "api.port", "0", "admin.port", "0",
        "writeback.flush.interval", "1s", "recovery.interval", "1s"));
    values.put("tls.cert", cert.certFile().toString());
    values.put("tls.key", cert.keyFile().toString());
    launcher = StandaloneLauncher.start(ConfigSource.empty().with(values), Time.SYSTEM);

    try (WsPlayerClient player = WsPlayerClient.connectTls(launcher.edge().wsAddress().getPort(),
        TestCertificates.trusting(ca))) {
      String token = JwtTokens.mint(Secrets.DEV_SECRET, 4242, Duration.ofMinutes(5), Instant.now());
      player.send(Frames.auth(1, token, "tv"));
      assertThat(player.next().hasAuthOk()).isTrue();
      player.send(Frames.heartbeat(2, Frames.event(Business.VIDEO, 9, 1_000, 60_000, System.currentTimeMillis())));
      assertThat(player.next().hasHeartbeatAck()).isTrue();
      player.send(Frames.historyQuery(3, 10));
      assertThat(player.next().getHistoryPage().getRecordsCount()).isEqualTo(1);
    }
    // The write-back flushed to Kafka and the job persisted it: their meters have samples now.
    await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500)).ignoreExceptions().until(() -> {
      String s = get("/metrics");
      StatusCommand.Scrape parsed = StatusCommand.Scrape.parse(s);
      boolean flushed = parsed.sum("playline_kafka_records_sent_total") >= 1;
      boolean persisted = parsed.sum("playline_job_records_total") >= 1;
      if (flushed && persisted) {
        scrape = s;
      }
      return flushed && persisted;
    });
  }

  @AfterAll
  static void stop() {
    if (launcher != null) {
      launcher.close();
    }
  }

  @Test
  void everyMetricTheDashboardQueriesIsScraped() throws Exception {
    JsonNode dashboard = new ObjectMapper().readTree(ROOT.resolve("deploy/grafana/playline.json").toFile());
    List<String> exprs = new ArrayList<>();
    Set<Integer> ids = new HashSet<>();
    for (JsonNode panel : dashboard.get("panels")) {
      assertThat(ids.add(panel.get("id").asInt())).as("panel ids are unique: %s", panel.get("id")).isTrue();
      if (panel.get("type").asText().equals("row")) {
        continue;
      }
      assertThat(panel.get("datasource").get("uid").asText()).as(panel.get("title").asText()).isEqualTo("${datasource}");
      assertThat(panel.get("targets")).as(panel.get("title").asText()).isNotEmpty();
      for (JsonNode target : panel.get("targets")) {
        exprs.add(target.get("expr").asText());
      }
    }
    assertThat(exprs).hasSizeGreaterThan(40);
    assertQueriedMetricsExist(exprs);
  }

  @Test
  void everyMetricTheAlertRulesQueryIsScrapedAndTheRulesParse() throws Exception {
    Path rules = ROOT.resolve("deploy/prometheus/alerts.yml");
    JsonNode root = new ObjectMapper(new YAMLFactory()).readTree(rules.toFile());
    List<String> exprs = new ArrayList<>();
    Set<String> names = new HashSet<>();
    for (JsonNode group : root.get("groups")) {
      assertThat(group.get("name").asText()).isNotBlank();
      for (JsonNode rule : group.get("rules")) {
        String alert = rule.get("alert").asText();
        assertThat(names.add(alert)).as("alert names are unique: %s", alert).isTrue();
        assertThat(rule.get("expr").asText()).as(alert).isNotBlank();
        assertThat(rule.get("for").asText()).as(alert).matches("\\d+[smh]");
        assertThat(rule.get("labels").get("severity").asText()).as(alert).isIn("critical", "warning");
        assertThat(rule.get("annotations").get("summary").asText()).as(alert).isNotBlank();
        assertThat(rule.get("annotations").get("description").asText()).as(alert).isNotBlank();
        exprs.add(rule.get("expr").asText());
      }
    }
    assertThat(names).contains("PlaylineComponentNotReady", "PlaylineJobLagGrowing", "PlaylineWriteBackNearItsLimit",
        "PlaylineHeartbeatsFailing");
    assertQueriedMetricsExist(exprs);

    Path promtool = promtool();
    if (promtool != null) {
      Process p = new ProcessBuilder(promtool.toString(), "check", "rules", rules.toString()).redirectErrorStream(true)
          .start();
      String output = new String(p.getInputStream().readAllBytes());
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(p.exitValue()).as(output).isZero();
      assertThat(output).contains("SUCCESS: " + names.size() + " rules found");
    } else {
      System.out.println("promtool is not installed: the rules got the schema check only");
    }
  }

  @Test
  void statusPrintsWhatAnOperatorAsksFirst() {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = PlaylineCli.run(new PrintWriter(out), new PrintWriter(err), "status", "--admin",
        "http://127.0.0.1:" + launcher.node().adminAddress().getPort(), "--interval", "200ms");
    assertThat(code).as(err.toString()).isZero();
    assertThat(out.toString()).contains(": ready").contains("redis: ready").contains("connections")
        .contains("heartbeats").contains("ack p99").contains("ms in the node").contains("write-back")
        .contains("job lag").containsPattern("limit [0-9,]+\\)");

    StringWriter unreachable = new StringWriter();
    assertThat(PlaylineCli.run(new PrintWriter(new StringWriter()), new PrintWriter(unreachable), "status",
        "--admin", "http://127.0.0.1:1", "--interval", "100ms")).isEqualTo(1);
    assertThat(unreachable.toString()).contains("cannot reach the node's admin port at http://127.0.0.1:1 (connection "
        + "refused)").contains("bin/playline standalone").doesNotContain("null");
  }

  /** Every playline metric an expression names is scraped, with every label value it selects by equality. */
  private static void assertQueriedMetricsExist(List<String> exprs) {
    Set<String> missing = new TreeSet<>();
    for (String expr : exprs) {
      Matcher m = METRIC.matcher(expr);
      assertThat(m.find()).as("queries a playline metric: %s", expr).isTrue();
      m.reset();
      while (m.find()) {
        if (!scraped(m.group(), null, null)) {
          missing.add(m.group());
        }
      }
      Matcher s = SELECTOR.matcher(expr);
      while (s.find()) {
        Matcher label = MATCHER.matcher(s.group(2));
        while (label.find()) {
          if (!scraped(s.group(1), label.group(1), label.group(2))) {
            missing.add(s.group(1) + "{" + label.group(1) + "=\"" + label.group(2) + "\"}");
          }
        }
      }
    }
    assertThat(missing).as("queried but not in a real scrape").isEmpty();
  }

  private static boolean scraped(String name, String label, String value) {
    for (String line : scrape.split("\n")) {
      if (line.startsWith("#")) {
        continue;
      }
      if (line.startsWith(name + " ") || line.startsWith(name + "{")) {
        if (label == null || line.contains(label + "=\"" + value + "\"")) {
          return true;
        }
      }
    }
    return false;
  }

  private static Path promtool() {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
      Path p = Path.of(dir, "promtool");
      if (Files.isExecutable(p)) {
        return p;
      }
    }
    return null;
  }

  private static String get(String path) throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
        + launcher.node().adminAddress().getPort() + path)).timeout(Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    return r.body();
  }
}
