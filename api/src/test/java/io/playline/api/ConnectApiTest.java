package io.playline.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.playline.core.store.RedisKeys;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.GetProgressRequest;
import io.playline.proto.v1.GetProgressResponse;
import io.playline.proto.v1.HistoryGrpc;
import io.playline.proto.v1.ItemKey;
import io.playline.proto.v1.ReportRequest;
import io.playline.testing.HBaseNamespace;
import io.playline.testing.KafkaNamespace;
import io.playline.testing.RedisNamespace;
import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The History API over HTTP as the Connect protocol, on a real api node: every method in JSON (the
 * proto3 mapping: 64-bit ids as strings, enums by name), binary, GET for the reads, errors with the
 * codes the gRPC port gives the same call, with the JDK's HTTP client, curl and raw sockets
 * (the port's budgets: {@link ConnectBudgetsTest}).
 */
class ConnectApiTest extends AbstractConnectApiTest {
  @Test
  void everyMethodAnswersInJson(RedisNamespace redis, KafkaNamespace kafka, HBaseNamespace hbase) throws Exception {
    start(redis, kafka, hbase, Map.of());
    HttpResponse<String> report = json("Report", "{\"uid\":\"42\",\"deviceId\":\"tv\",\"platform\":\"web\",\"events\":["
        + event("ARTICLE", 9, 3000) + "," + event("VIDEO", 12345678901234L, 500) + "]}");
    assertThat(report.statusCode()).isEqualTo(200);
    assertThat(report.headers().firstValue("content-type")).hasValue("application/json");
    assertThat(report.body()).contains("\"firstToday\":true", "\"firstView\":[true,true]", "\"flagDate\":\"");

    HttpResponse<String> progress = json("GetProgress",
        "{\"uid\":\"42\",\"items\":[{\"business\":\"ARTICLE\",\"oid\":\"9\"},{\"business\":\"VIDEO\",\"oid\":\"12345678901234\"}]}");
    assertThat(progress.statusCode()).isEqualTo(200);
    assertThat(progress.body()).contains("\"uid\":\"42\"", "\"business\":\"ARTICLE\"", "\"progressMs\":\"3000\"",
        "\"oid\":\"12345678901234\"", "\"deviceId\":\"tv\"");

    HttpResponse<String> batch = json("BatchGetProgress", "{\"requests\":[{\"uid\":\"42\",\"items\":["
        + "{\"business\":\"ARTICLE\",\"oid\":\"9\"}]},{\"uid\":\"43\",\"items\":[{\"business\":\"ARTICLE\","
        + "\"oid\":\"9\"}]},{\"uid\":\"42\"}]}");
    assertThat(batch.statusCode()).isEqualTo(200);
    assertThat(batch.body()).as("one answer per request, in order: 42's record, none for 43, none asked")
        .startsWith("{\"responses\":[{\"records\":[{\"uid\":\"42\",").contains("\"progressMs\":\"3000\"")
        .endsWith("}]},{},{}]}");

    HttpResponse<String> page = json("ListHistory", "{\"uid\":\"42\",\"limit\":1}");
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.body()).contains("\"hasMore\":true", "\"next\":{");

    assertThat(json("SetPaused", "{\"uid\":\"42\",\"paused\":true}").body()).isEqualTo("{\"paused\":true}");
    assertThat(json("GetPaused", "{\"uid\":\"42\"}").body()).isEqualTo("{\"paused\":true}");
    assertThat(json("SetPaused", "{\"uid\":\"42\",\"paused\":false}").body()).isEqualTo("{}");

    HttpResponse<String> stats = json("GetItemStats", "{\"items\":[{\"business\":\"VIDEO\",\"oid\":\"5\"}]}");
    assertThat(stats.statusCode()).isEqualTo(200);
    assertThat(stats.body()).isEqualTo("{\"stats\":[{\"item\":{\"business\":\"VIDEO\",\"oid\":\"5\"}}]}");

    assertThat(json("DeleteHistory", "{\"uid\":\"42\",\"items\":[{\"business\":\"ARTICLE\",\"oid\":\"9\"}]}").body())
        .isEqualTo("{}");
    assertThat(json("GetProgress", "{\"uid\":\"42\",\"items\":[{\"business\":\"ARTICLE\",\"oid\":\"9\"}]}").body())
        .isEqualTo("{}");
    assertThat(json("ClearHistory", "{\"uid\":\"42\",\"allBusinesses\":true}").statusCode()).isEqualTo(200);
    assertThat(json("ListHistory", "{\"uid\":\"42\"}").body()).isEqualTo("{}");
    assertThat(api.node().registry().get("playline.api.http.requests").tag("method", "GetProgress").tag("code", "ok")
        .counter().count()).isEqualTo(2);
  }

  @Test
  void binaryBodiesAndGetForTheReads(RedisNamespace redis, KafkaNamespace kafka, HBaseNamespace hbase) throws Exception {
    start(redis, kafka, hbase, Map.of());
    assertThat(json("Report", "{\"uid\":\"7\",\"events\":[" + event("COMIC", 3, 1500) + "]}").statusCode())
        .isEqualTo(200);
    GetProgressRequest request = GetProgressRequest.newBuilder().setUid(7)
        .addItems(ItemKey.newBuilder().setBusiness(Business.COMIC).setOid(3)).build();
    HttpResponse<byte[]> binary = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port() + HISTORY
            + "GetProgress")).header("Content-Type", "application/proto").header("Authorization", TestApi.bearer())
        .POST(HttpRequest.BodyPublishers.ofByteArray(request.toByteArray())).build(), HttpResponse.BodyHandlers.ofByteArray());
    assertThat(binary.statusCode()).isEqualTo(200);
    assertThat(binary.headers().firstValue("content-type")).hasValue("application/proto");
    assertThat(GetProgressResponse.parseFrom(binary.body()).getRecords(0).getProgressMs()).isEqualTo(1500);

    String query = "?connect=v1&encoding=json&message=" + URLEncoder.encode(
        "{\"uid\":\"7\",\"items\":[{\"business\":\"COMIC\",\"oid\":\"3\"}]}", StandardCharsets.UTF_8);
    HttpResponse<String> get = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port() + HISTORY
        + "GetProgress" + query)).header("Authorization", TestApi.bearer()).GET().build(), HttpResponse.BodyHandlers.ofString());
    assertThat(get.statusCode()).isEqualTo(200);
    assertThat(get.body()).contains("\"progressMs\":\"1500\"");

    String base64 = Base64.getUrlEncoder().withoutPadding().encodeToString(request.toByteArray());
    HttpResponse<byte[]> getBinary = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port() + HISTORY
            + "GetProgress?encoding=proto&base64=1&message=" + base64)).header("Authorization", TestApi.bearer()).GET()
        .build(), HttpResponse.BodyHandlers.ofByteArray());
    assertThat(GetProgressResponse.parseFrom(getBinary.body()).getRecords(0).getProgressMs()).isEqualTo(1500);

    // A write has side effects: POST only.
    HttpResponse<String> getReport = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port() + HISTORY
        + "Report?encoding=json&message=%7B%7D")).header("Authorization", TestApi.bearer()).GET().build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(getReport.statusCode()).isEqualTo(405);
    assertThat(getReport.headers().firstValue("allow")).hasValue("POST");
  }

  @Test
  void errorsCarryTheCodeTheGrpcPortGives(RedisNamespace redis, KafkaNamespace kafka, HBaseNamespace hbase)
      throws Exception {
    start(redis, kafka, hbase, Map.of());
    HttpResponse<String> noToken = post("GetPaused", "application/json", "{\"uid\":\"1\"}".getBytes(StandardCharsets.UTF_8));
    assertThat(noToken.statusCode()).isEqualTo(401);
    assertThat(noToken.body()).startsWith("{\"code\":\"unauthenticated\",\"message\":\"missing credentials");
    // Credentials are checked before the body is read, as on the gRPC port.
    assertThat(post("GetPaused", "application/json", "{\"uid\":".getBytes(StandardCharsets.UTF_8)).statusCode())
        .isEqualTo(401);
    try (Socket raw = new Socket("127.0.0.1", port())) {
      raw.setSoTimeout(10_000);
      raw.getOutputStream().write(("GET " + HISTORY + "GetPaused?encoding=json&message=%zz HTTP/1.1\r\nHost: x\r\n"
          + "Connection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      assertThat(new String(raw.getInputStream().readAllBytes(), StandardCharsets.US_ASCII))
          .as("a malformed escape").startsWith("HTTP/1.1 400").contains("invalid_argument");
    }

    String invalid = "{\"uid\":\"0\",\"events\":[" + event("VIDEO", 1, 1) + "]}";
    HttpResponse<String> overHttp = json("Report", invalid);
    assertThat(overHttp.statusCode()).isEqualTo(400);
    ManagedChannel channel = api.channel();
    try {
      ReportRequest.Builder same = ReportRequest.newBuilder();
      com.google.protobuf.util.JsonFormat.parser().merge(invalid, same);
      assertThatThrownBy(() -> HistoryGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS)
          .report(same.build())).isInstanceOfSatisfying(StatusRuntimeException.class, e ->
          assertThat(overHttp.body()).isEqualTo("{\"code\":\"invalid_argument\",\"message\":\""
              + e.getStatus().getDescription() + "\"}"));
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }

    assertThat(json("NoSuchMethod", "{}").statusCode()).isEqualTo(404);
    assertThat(post("GetPaused", "text/plain", new byte[0], "Authorization", TestApi.bearer()).statusCode())
        .isEqualTo(415);
    HttpResponse<String> badJson = json("GetPaused", "{\"uid\":");
    assertThat(badJson.statusCode()).isEqualTo(400);
    assertThat(badJson.body()).as("the rule, not the parser's exception")
        .isEqualTo("{\"code\":\"invalid_argument\",\"message\":\"the body is not valid JSON\"}");
    assertThat(post("GetPaused", "application/json", "{}".getBytes(StandardCharsets.UTF_8), "Authorization",
        TestApi.bearer(), "Content-Encoding", "br").body()).contains("\"code\":\"unimplemented\"");
    assertThat(post("GetPaused", "application/json", "{}".getBytes(StandardCharsets.UTF_8), "Authorization",
        TestApi.bearer(), "Connect-Timeout-Ms", "soon").statusCode()).isEqualTo(400);
    assertThat(post("GetPaused", "application/json", "{}".getBytes(StandardCharsets.UTF_8), "Authorization",
        TestApi.bearer(), "Connect-Protocol-Version", "2").statusCode()).isEqualTo(400);
  }

  @Test
  void curlReportsAndReadsBack(RedisNamespace redis, KafkaNamespace kafka, HBaseNamespace hbase) throws Exception {
    start(redis, kafka, hbase, Map.of());
    String url = "http://127.0.0.1:" + port() + HISTORY;
    Curl.Answer report = Curl.run("-H", "Authorization: " + TestApi.bearer(), "-H", "Content-Type: application/json",
        "-d", "{\"uid\":\"77\",\"events\":[" + event("AUDIO", 4, 2500) + "]}", url + "Report");
    assertThat(report.status()).isEqualTo(200);
    assertThat(report.body()).contains("\"firstToday\":true");
    Curl.Answer read = Curl.run("-G", "-H", "Authorization: " + TestApi.bearer(), "--data-urlencode", "encoding=json",
        "--data-urlencode", "message={\"uid\":\"77\",\"items\":[{\"business\":\"AUDIO\",\"oid\":\"4\"}]}",
        url + "GetProgress");
    assertThat(read.status()).isEqualTo(200);
    assertThat(read.body()).contains("\"progressMs\":\"2500\"");
    assertThat(Curl.run("-d", "{}", "-H", "Content-Type: application/json", url + "GetPaused").status()).isEqualTo(401);
  }

  @Test
  void nothingSentAfterAnAnswerThatClosesTheConnectionIsRun(RedisNamespace redis, KafkaNamespace kafka,
      HBaseNamespace hbase) throws Exception {
    start(redis, kafka, hbase, Map.of());
    String close = request("GetPaused", "{\"uid\":\"42\"}", "Connection: close\r\n");
    String pause = request("SetPaused", "{\"uid\":\"4242\",\"paused\":true}", "");
    try (Socket socket = new Socket("127.0.0.1", port())) {
      socket.setSoTimeout(10_000);
      socket.getOutputStream().write((close + pause).getBytes(StandardCharsets.US_ASCII));
      String answers = new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
      assertThat(answers.split("HTTP/1.1 ", -1)).as("one answer, then the close").hasSize(2);
    }
    assertThat(json("GetPaused", "{\"uid\":\"4242\"}").body()).as("the request after the close was not run")
        .isEqualTo("{}");
  }

  @Test
  void batchLimitsAreTheConfiguredOnes(RedisNamespace redis, KafkaNamespace kafka, HBaseNamespace hbase)
      throws Exception {
    start(redis, kafka, hbase, Map.of("query.batch.max.requests", "2", "query.batch.max.items", "3"));
    String one = "{\"uid\":\"42\",\"items\":[{\"business\":\"VIDEO\",\"oid\":\"1\"}]}";
    String two = "{\"uid\":\"42\",\"items\":[{\"business\":\"VIDEO\",\"oid\":\"1\"},"
        + "{\"business\":\"VIDEO\",\"oid\":\"2\"}]}";
    assertThat(json("BatchGetProgress", "{\"requests\":[" + one + "," + two + "]}").body())
        .as("two requests of three items in all: the limits, answered").isEqualTo("{\"responses\":[{},{}]}");
    assertThat(json("BatchGetProgress", "{\"requests\":[" + one + "," + one + "," + one + "]}").body())
        .isEqualTo("{\"code\":\"invalid_argument\",\"message\":\"requests: 3 entries (expected: at most 2)\"}");
    assertThat(json("BatchGetProgress", "{\"requests\":[" + two + "," + two + "]}").body())
        .isEqualTo("{\"code\":\"invalid_argument\",\"message\":\"requests: 4 items in all (expected: at most 3)\"}");
  }

  @Test
  void theLargestBatchFitsConnectJsonAndOneItemMoreIsRefusedAsInvalid(RedisNamespace redis, KafkaNamespace kafka,
      HBaseNamespace hbase) throws Exception {
    start(redis, kafka, hbase, Map.of());
    // The default limits' largest batch with the longest ids and names: 100 requests of 10 items, as compact JSON.
    String max = Long.toString(Long.MAX_VALUE);
    StringBuilder body = new StringBuilder("{\"requests\":[");
    for (int r = 0; r < 100; r++) {
      body.append(r == 0 ? "" : ",").append("{\"uid\":\"").append(max).append("\",\"items\":[");
      for (int i = 0; i < 10; i++) {
        body.append(i == 0 ? "" : ",").append("{\"business\":\"EPISODE\",\"oid\":\"").append(Long.MAX_VALUE - i)
            .append("\"}");
      }
      body.append("]}");
    }
    String largest = body.append("]}").toString();
    assertThat(largest.length()).as("near the 64 KiB body limit").isGreaterThan(50_000);
    HttpResponse<String> answered = json("BatchGetProgress", largest);
    assertThat(answered.statusCode()).as(answered.body()).isEqualTo(200);
    assertThat(answered.body())
        .isEqualTo("{\"responses\":[" + String.join(",", java.util.Collections.nCopies(100, "{}")) + "]}");
    String oneMore = largest.replaceFirst("\\]\\}", ",{\"business\":\"VIDEO\",\"oid\":\"1\"}]}");
    assertThat(json("BatchGetProgress", oneMore).body()).as("refused by the batch's limit, not the body's")
        .isEqualTo("{\"code\":\"invalid_argument\",\"message\":\"requests: 1001 items in all (expected: at most "
            + "1000)\"}");
  }

  @Test
  void aBatchFailsAsAWholeWithTheFailureOfItsFailingLookup(RedisNamespace redis, KafkaNamespace kafka,
      HBaseNamespace hbase) throws Exception {
    start(redis, kafka, hbase, Map.of());
    assertThat(json("Report", "{\"uid\":\"42\",\"events\":[" + event("VIDEO", 1, 1000) + "]}").statusCode())
        .isEqualTo(200);
    // User 77's records key holds a string: its HMGET fails WRONGTYPE, a failure no retry mends.
    RedisKeys keys = new RedisKeys(api.node().core().config().redisKeyPrefix());
    api.node().core().redis().shared().set(keys.records(77), "x".getBytes(StandardCharsets.US_ASCII))
        .get(10, TimeUnit.SECONDS);
    String item = ",\"items\":[{\"business\":\"VIDEO\",\"oid\":\"1\"}]}";
    assertThat(json("GetProgress", "{\"uid\":\"42\"" + item).body()).contains("\"progressMs\":\"1000\"");
    HttpResponse<String> alone = json("GetProgress", "{\"uid\":\"77\"" + item);
    assertThat(alone.statusCode()).isEqualTo(500);
    HttpResponse<String> batch = json("BatchGetProgress",
        "{\"requests\":[{\"uid\":\"42\"" + item + ",{\"uid\":\"77\"" + item + "]}");
    assertThat(batch.statusCode()).as("42's answer is not sent without 77's").isEqualTo(alone.statusCode());
    assertThat(batch.body()).doesNotContain("progressMs").contains("\"code\":\"internal\"");
  }

  @Test
  void aCallThatOutlivesItsBudgetIsAnsweredDeadlineExceeded(RedisNamespace redis, KafkaNamespace kafka,
      HBaseNamespace hbase) throws Exception {
    start(redis, kafka, hbase, Map.of("api.http.call.timeout", "500ms"));
    api.node().core().redis().shared().clientPause(4_000).get(5, TimeUnit.SECONDS);
    HttpResponse<String> capped = json("GetPaused", "{\"uid\":\"42\"}");
    assertThat(capped.statusCode()).isEqualTo(504);
    assertThat(capped.body()).contains("deadline_exceeded", "api.http.call.timeout");
    HttpResponse<String> asked = post("GetPaused", "application/json", "{\"uid\":\"42\"}".getBytes(StandardCharsets.UTF_8),
        "Authorization", TestApi.bearer(), "Connect-Timeout-Ms", "200");
    assertThat(asked.statusCode()).isEqualTo(504);
    assertThat(asked.body()).contains("Connect-Timeout-Ms 200");
    await().atMost(Duration.ofSeconds(20)).ignoreExceptions()
        .until(() -> json("GetPaused", "{\"uid\":\"42\"}").statusCode() == 200);
  }

  @Test
  void stoppingTheApiClosesItsOpenHttpConnections(RedisNamespace redis, KafkaNamespace kafka, HBaseNamespace hbase)
      throws Exception {
    start(redis, kafka, hbase, Map.of("api.http.request.timeout", "1m")); // not the idle cut
    try (Socket kept = new Socket("127.0.0.1", port())) {
      kept.setSoTimeout(10_000);
      kept.getOutputStream().write(request("GetPaused", "{\"uid\":\"42\"}", "").getBytes(StandardCharsets.US_ASCII));
      assertThat(readAtLeast(kept.getInputStream(), 1)).startsWith("HTTP/1.1 200 OK");
      api.api().close();
      InputStream in = kept.getInputStream();
      assertThat(in.read()).as("closed by the server, not left to send more reports").isEqualTo(-1);
    }
  }
}
