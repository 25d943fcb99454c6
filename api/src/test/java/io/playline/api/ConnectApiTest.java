package io.playline.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.GetProgressRequest;
import io.playline.proto.v1.GetProgressResponse;
import io.playline.proto.v1.HistoryGrpc;
import io.playline.proto.v1.ItemKey;
import io.playline.proto.v1.ReportRequest;
import io.playline.testing.HBaseNamespace;
import io.playline.testing.KafkaNamespace;
import io.playline.testing.RealHBaseExtension;
import io.playline.testing.RealKafkaExtension;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The History API over HTTP as the Connect protocol, on a real api node: every method in JSON (the
 * proto3 mapping: 64-bit ids as strings, enums by name), binary, GET for the reads, errors with the
 * codes the gRPC port gives the same call, and the port's budgets (per address too) — with the
 * JDK's HTTP client, curl and raw sockets.
 */
@ExtendWith({RealRedisExtension.class, RealKafkaExtension.class, RealHBaseExtension.class})
class ConnectApiTest {
  private static final String HISTORY = "/playline.v1.History/";
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(10)).build();
  private TestApi api;

  private void start(RedisNamespace redis, KafkaNamespace kafka, HBaseNamespace hbase, Map<String, String> settings) {
    api = TestApi.start(redis, kafka, hbase, settings);
  }

  @AfterEach
  void stop() {
    if (api != null) {
      api.close();
    }
  }

  private int port() {
    return api.api().httpAddress().getPort();
  }

  private HttpResponse<String> post(String method, String contentType, byte[] body, String... headers) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port() + HISTORY + method))
        .timeout(Duration.ofSeconds(20)).header("Content-Type", contentType)
        .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    if (headers.length > 0) {
      b.headers(headers);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** A JSON call with a service token. */
  private HttpResponse<String> json(String method, String body) throws Exception {
    return post(method, "application/json", body.getBytes(StandardCharsets.UTF_8), "Authorization", TestApi.bearer(),
        "Connect-Protocol-Version", "1");
  }

  private static String event(String business, long oid, long progressMs) {
    return "{\"business\":\"" + business + "\",\"oid\":\"" + oid + "\",\"progressMs\":\"" + progressMs
        + "\",\"durationMs\":\"60000\",\"eventTimeMs\":\"" + System.currentTimeMillis() + "\"}";
  }

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
    Metadata headers = new Metadata();
    headers.put(ServiceAuthInterceptor.AUTHORIZATION, TestApi.bearer());
    ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", api.api().address().getPort()).usePlaintext()
        .intercept(MetadataUtils.newAttachHeadersInterceptor(headers)).build();
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

  /** A raw HTTP/1.1 request with a service token and {@code extraHeaders} (each ending in CRLF). */
  private static String request(String method, String json, String extraHeaders) {
    return "POST " + HISTORY + method + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: "
        + TestApi.bearer() + "\r\n" + extraHeaders + "Content-Length: " + json.length() + "\r\n\r\n" + json;
  }

  private double refused(String reason) {
    return api.node().registry().get("playline.api.http.refused").tag("reason", reason).counter().count();
  }

  @Test
  void thePortsBudgetsHold(RedisNamespace redis, KafkaNamespace kafka, HBaseNamespace hbase) throws Exception {
    start(redis, kafka, hbase, Map.of("frame.max.bytes", "4096", "api.http.max.connections", "3",
        "api.http.request.timeout", "3s", "api.http.max.pipelined", "2"));
    // Too large: resource_exhausted, then closed.
    HttpResponse<String> large = json("GetPaused", "{\"uid\":\"1\",\"pad\":\"" + "x".repeat(5000) + "\"}");
    assertThat(large.statusCode()).isEqualTo(429);
    assertThat(large.body()).contains("resource_exhausted", "larger than 4096 bytes");

    // A slowloris trickling its headers is cut at the request deadline.
    try (Socket slow = new Socket("127.0.0.1", port())) {
      slow.getOutputStream().write("POST /playline.v1.History/GetPaused HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII));
      slow.setSoTimeout(10_000);
      assertThat(slow.getInputStream().read()).as("closed without an answer").isEqualTo(-1);
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> refused("timeout") >= 1);

    // Two requests ahead of their answers are answered in order; a third ahead closes the connection.
    String getPaused = "POST /playline.v1.History/GetPaused HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        + "Authorization: " + TestApi.bearer() + "\r\nContent-Length: 12\r\n\r\n{\"uid\":\"42\"}";
    try (Socket two = new Socket("127.0.0.1", port())) {
      two.setSoTimeout(10_000);
      two.getOutputStream().write((getPaused + getPaused).getBytes(StandardCharsets.US_ASCII));
      String answers = readAtLeast(two.getInputStream(), 2);
      assertThat(answers).startsWith("HTTP/1.1 200 OK");
    }
    try (Socket three = new Socket("127.0.0.1", port())) {
      three.setSoTimeout(10_000);
      three.getOutputStream().write((getPaused + getPaused + getPaused).getBytes(StandardCharsets.US_ASCII));
      InputStream in = three.getInputStream();
      while (in.read() != -1) {
        // whatever was answered before the close
      }
    }
    assertThat(refused("pipelined")).isEqualTo(1);

    // More connections than api.http.max.connections, every one of them a backend's (a request with a
    // valid token answered): the extra one is closed at accept.
    await().atMost(Duration.ofSeconds(10)).until(() -> openConnections() == 0);
    try (Socket a = new Socket("127.0.0.1", port()); Socket b = new Socket("127.0.0.1", port());
        Socket c = new Socket("127.0.0.1", port())) {
      await().atMost(Duration.ofSeconds(5)).until(() -> openConnections() == 3);
      for (Socket backend : new Socket[] {a, b, c}) {
        backend.getOutputStream().write(getPaused.getBytes(StandardCharsets.US_ASCII));
        backend.setSoTimeout(10_000);
        assertThat(readAtLeast(backend.getInputStream(), 1)).startsWith("HTTP/1.1 200 OK");
      }
      try (Socket d = new Socket("127.0.0.1", port())) {
        d.setSoTimeout(10_000);
        assertThat(d.getInputStream().read()).isEqualTo(-1);
      }
      assertThat(refused("connections")).isEqualTo(1);
      // The three admitted ones are still served.
      for (Socket admitted : new Socket[] {a, b, c}) {
        OutputStream out = admitted.getOutputStream();
        out.write(getPaused.getBytes(StandardCharsets.US_ASCII));
        admitted.setSoTimeout(10_000);
        assertThat(readAtLeast(admitted.getInputStream(), 1)).startsWith("HTTP/1.1 200 OK");
      }
    }
  }

  @Test
  void strangersWithoutACredentialCannotKeepABackendOut(RedisNamespace redis, KafkaNamespace kafka,
      HBaseNamespace hbase) throws Exception {
    start(redis, kafka, hbase, Map.of("api.http.max.connections", "4", "api.http.max.connections.per.address", "2",
        "api.http.request.timeout", "1m"));
    String noCredential = "POST " + HISTORY + "GetPaused HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        + "Content-Length: 12\r\n\r\n{\"uid\":\"42\"}";
    List<Socket> strangers = new ArrayList<>();
    try {
      for (int round = 0; round < 5; round++) {
        // Each round begins with the strangers the last backend left (it took one stranger's place, then left).
        int left = round == 0 ? 0 : 3;
        await().atMost(Duration.ofSeconds(10)).until(() -> openConnections() == left);
        // A stranger asking without a credential is answered 401 and its connection closed: it cannot keep it.
        try (Socket asking = new Socket(InetAddress.getLoopbackAddress(), port(), InetAddress.getByName("127.0.0.3"),
            0)) {
          asking.setSoTimeout(10_000);
          asking.getOutputStream().write(noCredential.getBytes(StandardCharsets.US_ASCII));
          String answer = new String(asking.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
          assertThat(answer).startsWith("HTTP/1.1 401").containsIgnoringCase("connection: close");
        }
        // Its place is free again before the strangers come (else a stranger arriving meanwhile takes another's).
        await().atMost(Duration.ofSeconds(10)).until(() -> openConnections() == left);
        // Strangers from two addresses hold every connection of the port, idle.
        while (strangers.size() < 4 * (round + 1)) {
          strangers.add(new Socket(InetAddress.getLoopbackAddress(), port(),
              InetAddress.getByName("127.0.0." + (4 + strangers.size() % 2)), 0));
        }
        // Every stranger of the round was seen: round 0 fills the port, later ones get back the place the backend
        // took and have three refused for their address's cap (so no late stranger races the backend).
        int refusedSoFar = 3 * round;
        await().atMost(Duration.ofSeconds(10))
            .until(() -> openConnections() == 4 && refused("address") == refusedSoFar);
        // A backend with a valid token is let in and answered all the same.
        try (Socket backend = new Socket(InetAddress.getLoopbackAddress(), port())) {
          backend.setSoTimeout(10_000);
          backend.getOutputStream().write(request("ListHistory", "{\"uid\":\"42\"}", "")
              .getBytes(StandardCharsets.US_ASCII));
          assertThat(readAtLeast(backend.getInputStream(), 1)).startsWith("HTTP/1.1 200 OK");
        }
      }
    } finally {
      for (Socket s : strangers) {
        s.close();
      }
    }
    assertThat(refused("evicted")).isGreaterThanOrEqualTo(5);
    assertThat(refused("connections")).isZero();
  }

  @Test
  void oneAddressGetsAtMostItsShareOfThePort(RedisNamespace redis, KafkaNamespace kafka, HBaseNamespace hbase)
      throws Exception {
    start(redis, kafka, hbase, Map.of("api.http.max.connections", "10", "api.http.max.connections.per.address", "2",
        "api.http.request.timeout", "1m"));
    Socket a = counted("127.0.0.1", 1);
    try (Socket b = counted("127.0.0.1", 2)) {
      try (Socket over = new Socket(InetAddress.getLoopbackAddress(), port())) {
        over.setSoTimeout(10_000);
        assertThat(over.getInputStream().read()).as("closed at accept").isEqualTo(-1);
      }
      assertThat(refused("address")).isEqualTo(1);
      assertThat(refused("connections")).isZero();
      b.getOutputStream().write(request("GetPaused", "{\"uid\":\"42\"}", "").getBytes(StandardCharsets.US_ASCII));
      b.setSoTimeout(10_000);
      assertThat(readAtLeast(b.getInputStream(), 1)).as("those let in are served").startsWith("HTTP/1.1 200 OK");
      try (Socket other = counted("127.0.0.2", 3)) {
        other.getOutputStream().write(request("GetPaused", "{\"uid\":\"42\"}", "").getBytes(StandardCharsets.US_ASCII));
        other.setSoTimeout(10_000);
        assertThat(readAtLeast(other.getInputStream(), 1)).as("another address is let in").startsWith("HTTP/1.1 200 OK");
      }
      a.close();
      await().atMost(Duration.ofSeconds(10)).until(() -> openConnections() == 1);
      try (Socket again = counted("127.0.0.1", 2)) {
        again.getOutputStream().write(request("GetPaused", "{\"uid\":\"42\"}", "").getBytes(StandardCharsets.US_ASCII));
        again.setSoTimeout(10_000);
        assertThat(readAtLeast(again.getInputStream(), 1)).as("a closed connection frees its address's place")
            .startsWith("HTTP/1.1 200 OK");
      }
    } finally {
      a.close();
    }
  }

  /** A connection from {@code local} (a loopback address), waited for until the port counted {@code countedAfter}. */
  private Socket counted(String local, int countedAfter) throws Exception {
    Socket s = new Socket(InetAddress.getLoopbackAddress(), port(), InetAddress.getByName(local), 0);
    await().atMost(Duration.ofSeconds(10)).until(() -> openConnections() == countedAfter);
    return s;
  }

  private double openConnections() {
    return api.node().registry().get("playline.api.http.connections").gauge().value();
  }

  /** Reads until {@code answers} HTTP status lines arrived. */
  private static String readAtLeast(InputStream in, int answers) throws Exception {
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
