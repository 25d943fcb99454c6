package io.playline.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Message;
import io.grpc.Status;
import io.playline.proto.v1.BatchGetProgressRequest;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.ClearHistoryRequest;
import io.playline.proto.v1.GetProgressRequest;
import io.playline.proto.v1.HistoryGrpc;
import io.playline.proto.v1.ItemKey;
import io.playline.proto.v1.ListHistoryRequest;
import io.playline.proto.v1.ReportRequest;
import io.playline.api.ApiTransports.Answer;
import io.playline.testing.Frames;
import io.playline.testing.HBaseNamespace;
import io.playline.testing.KafkaNamespace;
import io.playline.testing.RealHBaseExtension;
import io.playline.testing.RealKafkaExtension;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Date;
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
  private ApiTransports transports;

  @BeforeEach
  void start(RedisNamespace redis, KafkaNamespace kafka, HBaseNamespace hbase) {
    transports = ApiTransports.start(redis, kafka, hbase);
    HistoryGrpc.newBlockingStub(transports.channel()).withDeadlineAfter(20, TimeUnit.SECONDS).report(ReportRequest
        .newBuilder().setUid(UID).addEvents(Frames.event(Business.VIDEO, 7, 3_000, 60_000, System.currentTimeMillis()))
        .build());
  }

  @AfterEach
  void stop() throws InterruptedException {
    transports.close();
  }

  private static Answer invalid(String message) {
    return Answer.refused(Status.Code.INVALID_ARGUMENT, message);
  }

  private boolean recordSurvives() {
    return HistoryGrpc.newBlockingStub(transports.channel()).withDeadlineAfter(20, TimeUnit.SECONDS).getProgress(
        GetProgressRequest.newBuilder().setUid(UID).addItems(VIDEO_7).build()).getRecordsCount() == 1;
  }

  @Test
  void anUnknownBusinessIsRefusedNamingTheFieldOnEveryTransportAndNothingIsCleared() throws Exception {
    ItemKey unknownItem = ItemKey.newBuilder().setBusinessValue(99).setOid(7).build();
    Map<String, Message> requests = Map.of(
        "ClearHistory", ClearHistoryRequest.newBuilder().setUid(UID).addBusinessesValue(99).build(),
        "ListHistory", ListHistoryRequest.newBuilder().setUid(UID).addBusinessesValue(99).build(),
        "GetProgress", GetProgressRequest.newBuilder().setUid(UID).addItems(unknownItem).build(),
        "BatchGetProgress", BatchGetProgressRequest.newBuilder()
            .addRequests(GetProgressRequest.newBuilder().setUid(UID).addItems(VIDEO_7))
            .addRequests(GetProgressRequest.newBuilder().setUid(UID).addItems(VIDEO_7).addItems(unknownItem)).build());
    Map<String, String> fields = Map.of("ClearHistory", "businesses[0]", "ListHistory", "businesses[0]",
        "GetProgress", "items[0].business", "BatchGetProgress", "requests[1].items[1].business");
    for (ApiTransports.Transport transport : transports.all()) {
      for (Map.Entry<String, Message> r : requests.entrySet()) {
        assertThat(transport.call(r.getKey(), r.getValue())).as("%s %s", r.getKey(), r.getValue())
            .isEqualTo(invalid(fields.get(r.getKey()) + ": 99 (expected: " + BUSINESSES + ")"));
      }
    }
    assertThat(recordSurvives()).isTrue();

    // By name, which only JSON has: refused, not dropped (a list emptied by dropping read as "every business").
    String uid = "\"uid\":\"" + UID + "\"";
    assertThat(transports.connectJson("ClearHistory", "{" + uid + ",\"businesses\":[\"PODCAST\"]}"))
        .isEqualTo(invalid("businesses[0]: \"PODCAST\" (expected: " + BUSINESSES + ")"));
    assertThat(recordSurvives()).as("the clear did not widen to every business").isTrue();
    assertThat(transports.connectJson("ListHistory", "{" + uid + ",\"businesses\":[\"VIDEO\",\"PODCAST\"]}")
        .message()).startsWith("businesses[1]: \"PODCAST\"");
    assertThat(transports.connectJson("GetProgress",
        "{" + uid + ",\"items\":[{\"business\":\"PODCAST\",\"oid\":\"7\"}]}").message())
        .startsWith("items[0].business: \"PODCAST\"");
    assertThat(transports.connectJson("BatchGetProgress", "{\"requests\":[{" + uid + "},{" + uid
        + ",\"items\":[{\"business\":\"PODCAST\",\"oid\":\"7\"}]}]}").message()).as("inside a batch")
        .startsWith("requests[1].items[0].business: \"PODCAST\"");
    assertThat(transports.connectJson("ListHistory", "{" + uid + ",\"after\":{\"viewTimeMs\":\"1\",\"item\":"
        + "{\"business\":\"podcast\",\"oid\":\"7\"}}}").message()).as("nested, and names are case-sensitive")
        .startsWith("after.item.business: \"podcast\"");
    assertThat(transports.connectJson("ClearHistory", "{" + uid + ",\"businesses\":[\"VIDEO\", 12]}").message())
        .startsWith("businesses[1]: 12");
    // Defined names and numbers, and fields the API does not have, still pass.
    assertThat(transports.connectJson("ListHistory",
        "{" + uid + ",\"businesses\":[\"VIDEO\", 3, \"4\"],\"color\":\"red\"}").code()).isEqualTo(Status.Code.OK);
    assertThat(recordSurvives()).isTrue();
  }

  @Test
  void aClearNamesItsScopeOnEveryTransport() throws Exception {
    ClearHistoryRequest empty = ClearHistoryRequest.newBuilder().setUid(UID).build();
    ClearHistoryRequest both = empty.toBuilder().addBusinesses(Business.VIDEO).setAllBusinesses(true).build();
    for (ApiTransports.Transport transport : transports.all()) {
      assertThat(transport.call("ClearHistory", empty)).isEqualTo(invalid(
          "businesses: empty (expected: the businesses to clear, or all_businesses: true to clear every business)"));
      assertThat(transport.call("ClearHistory", both).message()).startsWith("all_businesses: true with businesses");
    }
    assertThat(recordSurvives()).isTrue();
    assertThat(transports.connectJson("ClearHistory", "{\"uid\":\"" + UID + "\",\"allBusinesses\":true}").code())
        .isEqualTo(Status.Code.OK);
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
        "{\"uid\":\"1e99999999\"}", "uid: \"1e99999999\" (expected: an integer in -9223372036854775808.."
            + "9223372036854775807, as a JSON number or string)",
        "{\"uid\":\"42\",\"businesses\":[1e-99999999]}", "businesses[0]: 1e-99999999 (expected: " + BUSINESSES + ")",
        "{\"uid\":\"42\",\"businesses\":\"VIDEO\"}", "businesses: not a JSON array (expected: a list)",
        "{\"uid\":\"42\",\"after\":[]}", "after: not a JSON object (expected: a Cursor object)");
    for (Map.Entry<String, String> b : bodies.entrySet()) {
      assertThat(transports.connectJson("ListHistory", b.getKey())).as(b.getKey()).isEqualTo(invalid(b.getValue()));
    }
    assertThat(ApiTransports.connectError(transports.post("ListHistory", "application/proto",
        new byte[] {0x0a, (byte) 0xff}, TestApi.bearer())))
        .isEqualTo(invalid("the body is not a binary playline.v1.ListHistoryRequest"));
  }

  @Test
  void aPlayerTokenIsToldTheApiTakesServiceTokens() throws Exception {
    Instant now = Instant.now();
    String player = io.playline.node.auth.Hs256.sign("auth.secret", TestApi.PLAYER_SECRET,
        new com.nimbusds.jwt.JWTClaimsSet.Builder().subject(Long.toString(UID)).issueTime(Date.from(now))
            .expirationTime(Date.from(now.plusSeconds(60))).build());
    HttpResponse<byte[]> refused = transports.post("GetPaused", "application/json", "{\"uid\":\"42\"}".getBytes(
        StandardCharsets.UTF_8), "Bearer " + player);
    assertThat(refused.statusCode()).isEqualTo(401);
    assertThat(ApiTransports.connectError(refused).message())
        .startsWith("not a service token: a player token (sub is a uid); the internal API takes service tokens");
  }
}
