package io.playline.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.ClearHistoryRequest;
import io.playline.proto.v1.GetProgressRequest;
import io.playline.proto.v1.HistoryGrpc;
import io.playline.proto.v1.ItemKey;
import io.playline.proto.v1.ListHistoryRequest;
import io.playline.proto.v1.ReportRequest;
import io.playline.testing.Frames;
import io.playline.testing.HBaseNamespace;
import io.playline.testing.KafkaNamespace;
import io.playline.testing.RealHBaseExtension;
import io.playline.testing.RealKafkaExtension;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A request means exactly what it says, on every transport of the internal API (gRPC, Connect JSON,
 * Connect binary): an enum value the API does not define, by name or number, is INVALID_ARGUMENT
 * naming the field — never dropped, so a filter or a clear can never widen to "every business" —
 * a clear names its scope, and the Connect port's refusals are in the client's terms, never the
 * parser's. One real api node; the user's one record must survive every refused request.
 */
@ExtendWith({RealRedisExtension.class, RealKafkaExtension.class, RealHBaseExtension.class})
class RequestMeaningTest {
  private static final long UID = 42;
  private static final String BUSINESSES = "a Business the API defines: VIDEO, ARTICLE, COMIC, LIVE, AUDIO, EPISODE";
  private static final ItemKey VIDEO_7 = ItemKey.newBuilder().setBusiness(Business.VIDEO).setOid(7).build();
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(10)).build();
  private TestApi api;
  private ManagedChannel channel;

  /** An answer as a client sees it on any transport: the status code and its message. */
  private record Answer(Status.Code code, String message) {}

  /** A way to call the API. */
  private interface Transport {
    Answer call(String method, Message request) throws Exception;
  }

  @BeforeEach
  void start(RedisNamespace redis, KafkaNamespace kafka, HBaseNamespace hbase) {
    api = TestApi.start(redis, kafka, hbase, Map.of());
    Metadata headers = new Metadata();
    headers.put(ServiceAuthInterceptor.AUTHORIZATION, TestApi.bearer());
    channel = NettyChannelBuilder.forAddress("127.0.0.1", api.api().address().getPort()).usePlaintext()
        .intercept(MetadataUtils.newAttachHeadersInterceptor(headers)).build();
    HistoryGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS).report(ReportRequest.newBuilder()
        .setUid(UID).addEvents(Frames.event(Business.VIDEO, 7, 3_000, 60_000, System.currentTimeMillis())).build());
  }

  @AfterEach
  void stop() throws InterruptedException {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    api.close();
  }

  private Answer grpc(String method, Message request) {
    MethodDescriptor<Message, Message> descriptor = method(method);
    try {
      ClientCalls.blockingUnaryCall(channel, descriptor, CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS),
          request);
      return new Answer(Status.Code.OK, "");
    } catch (StatusRuntimeException e) {
      String description = e.getStatus().getDescription();
      return new Answer(e.getStatus().getCode(), description == null ? "" : description);
    }
  }

  @SuppressWarnings("unchecked") // every History method takes and returns generated messages
  private static MethodDescriptor<Message, Message> method(String name) {
    return (MethodDescriptor<Message, Message>) HistoryGrpc.getServiceDescriptor().getMethods().stream()
        .filter(m -> name.equals(m.getBareMethodName())).findFirst().orElseThrow();
  }

  private HttpResponse<String> post(String method, String contentType, byte[] body, String authorization)
      throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + api.api().httpAddress().getPort()
            + "/playline.v1.History/" + method)).timeout(Duration.ofSeconds(20)).header("Content-Type", contentType)
        .header("Authorization", authorization).POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private Answer connectJson(String method, String json) throws Exception {
    return connect(post(method, "application/json", json.getBytes(StandardCharsets.UTF_8), TestApi.bearer()));
  }

  private Answer connectBinary(String method, Message request) throws Exception {
    return connect(post(method, "application/proto", request.toByteArray(), TestApi.bearer()));
  }

  /** A Connect answer: 200 is OK; an error's code and message from its JSON body. */
  private static Answer connect(HttpResponse<String> response) {
    if (response.statusCode() == 200) {
      return new Answer(Status.Code.OK, "");
    }
    JsonObject error = JsonParser.parseString(response.body()).getAsJsonObject();
    Status.Code code = Status.Code.valueOf(error.get("code").getAsString().toUpperCase(java.util.Locale.ROOT));
    return new Answer(code, error.has("message") ? error.get("message").getAsString() : "");
  }

  private List<Transport> transports() {
    return List.of(this::grpc, this::connectBinary,
        (method, request) -> connectJson(method, JsonFormat.printer().print(request)));
  }

  private boolean recordSurvives() {
    return HistoryGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS).getProgress(
        GetProgressRequest.newBuilder().setUid(UID).addItems(VIDEO_7).build()).getRecordsCount() == 1;
  }

  @Test
  void anUnknownBusinessIsRefusedNamingTheFieldOnEveryTransportAndNothingIsCleared() throws Exception {
    ItemKey unknownItem = ItemKey.newBuilder().setBusinessValue(99).setOid(7).build();
    Map<String, Message> requests = Map.of(
        "ClearHistory", ClearHistoryRequest.newBuilder().setUid(UID).addBusinessesValue(99).build(),
        "ListHistory", ListHistoryRequest.newBuilder().setUid(UID).addBusinessesValue(99).build(),
        "GetProgress", GetProgressRequest.newBuilder().setUid(UID).addItems(unknownItem).build());
    Map<String, String> fields = Map.of("ClearHistory", "businesses[0]", "ListHistory", "businesses[0]",
        "GetProgress", "items[0].business");
    for (Transport transport : transports()) {
      for (Map.Entry<String, Message> r : requests.entrySet()) {
        assertThat(transport.call(r.getKey(), r.getValue())).as("%s %s", r.getKey(), r.getValue())
            .isEqualTo(new Answer(Status.Code.INVALID_ARGUMENT, fields.get(r.getKey()) + ": 99 (expected: " + BUSINESSES
                + ")"));
      }
    }
    assertThat(recordSurvives()).isTrue();

    // By name, which only JSON has: refused, not dropped (a list emptied by dropping read as "every business").
    String uid = "\"uid\":\"" + UID + "\"";
    assertThat(connectJson("ClearHistory", "{" + uid + ",\"businesses\":[\"PODCAST\"]}")).isEqualTo(new Answer(
        Status.Code.INVALID_ARGUMENT, "businesses[0]: \"PODCAST\" (expected: " + BUSINESSES + ")"));
    assertThat(recordSurvives()).as("the clear did not widen to every business").isTrue();
    assertThat(connectJson("ListHistory", "{" + uid + ",\"businesses\":[\"VIDEO\",\"PODCAST\"]}").message())
        .startsWith("businesses[1]: \"PODCAST\"");
    assertThat(connectJson("GetProgress", "{" + uid + ",\"items\":[{\"business\":\"PODCAST\",\"oid\":\"7\"}]}")
        .message()).startsWith("items[0].business: \"PODCAST\"");
    assertThat(connectJson("ListHistory", "{" + uid + ",\"after\":{\"viewTimeMs\":\"1\",\"item\":{\"business\":"
        + "\"podcast\",\"oid\":\"7\"}}}").message()).as("nested, and names are case-sensitive")
        .startsWith("after.item.business: \"podcast\"");
    assertThat(connectJson("ClearHistory", "{" + uid + ",\"businesses\":[\"VIDEO\", 12]}").message())
        .startsWith("businesses[1]: 12");
    // Defined names and numbers, and fields the API does not have, still pass.
    assertThat(connectJson("ListHistory", "{" + uid + ",\"businesses\":[\"VIDEO\", 3, \"4\"],\"color\":\"red\"}"))
        .isEqualTo(new Answer(Status.Code.OK, ""));
    assertThat(recordSurvives()).isTrue();
  }

  @Test
  void aClearNamesItsScopeOnEveryTransport() throws Exception {
    ClearHistoryRequest empty = ClearHistoryRequest.newBuilder().setUid(UID).build();
    ClearHistoryRequest both = empty.toBuilder().addBusinesses(Business.VIDEO).setAllBusinesses(true).build();
    for (Transport transport : transports()) {
      assertThat(transport.call("ClearHistory", empty)).isEqualTo(new Answer(Status.Code.INVALID_ARGUMENT,
          "businesses: empty (expected: the businesses to clear, or all_businesses: true to clear every business)"));
      assertThat(transport.call("ClearHistory", both).message()).startsWith("all_businesses: true with businesses");
    }
    assertThat(recordSurvives()).isTrue();
    assertThat(connectJson("ClearHistory", "{\"uid\":\"" + UID + "\",\"allBusinesses\":true}"))
        .isEqualTo(new Answer(Status.Code.OK, ""));
    assertThat(recordSurvives()).isFalse();
  }

  @Test
  void connectRefusalsSayTheFieldAndTheRuleNeverTheParsersText() throws Exception {
    Map<String, String> bodies = Map.of(
        "{\"uid\":", "the body is not valid JSON",
        "{\"uid\":\"42\"} trailing", "the body is not valid JSON",
        "[1]", "the body is not a JSON object (expected: a playline.v1.ListHistoryRequest)",
        "{\"uid\":\"abc\"}", "uid: \"abc\" (expected: an integer in -9223372036854775808..9223372036854775807, as a "
            + "JSON number or string)",
        "{\"uid\":\"42\",\"limit\":1.5}", "limit: 1.5 (expected: an integer in -2147483648..2147483647)",
        "{\"uid\":\"42\",\"businesses\":\"VIDEO\"}", "businesses: not a JSON array (expected: a list)",
        "{\"uid\":\"42\",\"after\":[]}", "after: not a JSON object (expected: a Cursor object)");
    for (Map.Entry<String, String> b : bodies.entrySet()) {
      assertThat(connectJson("ListHistory", b.getKey())).as(b.getKey())
          .isEqualTo(new Answer(Status.Code.INVALID_ARGUMENT, b.getValue()));
    }
    Answer binary = connect(post("ListHistory", "application/proto", new byte[] {0x0a, (byte) 0xff}, TestApi.bearer()));
    assertThat(binary).isEqualTo(new Answer(Status.Code.INVALID_ARGUMENT,
        "the body is not a binary playline.v1.ListHistoryRequest"));
  }

  @Test
  void aPlayerTokenIsToldTheApiTakesServiceTokens() throws Exception {
    Instant now = Instant.now();
    String player = io.playline.node.auth.Hs256.sign("auth.secret", TestApi.PLAYER_SECRET,
        new com.nimbusds.jwt.JWTClaimsSet.Builder().subject(Long.toString(UID)).issueTime(Date.from(now))
            .expirationTime(Date.from(now.plusSeconds(60))).build());
    HttpResponse<String> refused = post("GetPaused", "application/json", "{\"uid\":\"42\"}".getBytes(
        StandardCharsets.UTF_8), "Bearer " + player);
    assertThat(refused.statusCode()).isEqualTo(401);
    assertThat(connect(refused).message()).startsWith("not a service token: a player token (sub is a uid); the "
        + "internal API takes service tokens");
  }
}
