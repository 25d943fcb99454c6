package io.playline.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.nimbusds.jwt.JWTClaimsSet;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.reflection.v1.ServerReflectionGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.reflection.v1.ServerReflectionResponse;
import io.grpc.reflection.v1.ServiceResponse;
import io.grpc.stub.StreamObserver;
import io.playline.api.config.ApiConfig;
import io.playline.core.HistoryCore;
import io.playline.core.config.ConfigSource;
import io.playline.node.Node;
import io.playline.node.NodeConfig;
import io.playline.node.admin.Readiness;
import io.playline.node.auth.Hs256;
import io.playline.proto.v1.BatchGetProgressRequest;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.GetItemStatsRequest;
import io.playline.proto.v1.GetProgressRequest;
import io.playline.proto.v1.GetProgressResponse;
import io.playline.proto.v1.HistoryGrpc;
import io.playline.proto.v1.HistoryRecord;
import io.playline.proto.v1.ItemKey;
import io.playline.proto.v1.ItemStats;
import io.playline.proto.v1.PlayEvent;
import io.playline.proto.v1.ReportRequest;
import io.playline.proto.v1.ReportResponse;
import io.playline.testing.Frames;
import io.playline.testing.HBaseNamespace;
import io.playline.testing.KafkaNamespace;
import io.playline.testing.RedisNamespace;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The internal API on a node that accepts no players, as the api role runs it, on real Redis, Kafka
 * and HBase: reports and reads, service tokens, health and reflection. What a client can make its
 * port spend: {@link ApiPortBudgetsTest}.
 */
class ApiServerTest extends AbstractApiNodeTest {
  /** A player token (HS256, {@code sub} = uid), as the player edge accepts it. */
  private static String playerToken(String secret, long uid, Instant now) {
    return Hs256.sign("auth.secret", secret, new JWTClaimsSet.Builder().subject(Long.toString(uid))
        .issueTime(Date.from(now)).expirationTime(Date.from(now.plusSeconds(60))).build());
  }

  @Test
  void aReportWithAnOverlongDeviceIdOrPlatformIsRefused() {
    var stub = HistoryGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS);
    PlayEvent event = Frames.event(Business.ARTICLE, 9, 3_000, 60_000, System.currentTimeMillis());
    assertThatThrownBy(() -> stub.report(ReportRequest.newBuilder().setUid(42).setDeviceId("d".repeat(65))
        .addEvents(event).build())).isInstanceOf(StatusRuntimeException.class)
        .hasMessage("INVALID_ARGUMENT: device_id: 65 bytes (expected: at most 64)");
    assertThatThrownBy(() -> stub.report(ReportRequest.newBuilder().setUid(42).setDeviceId("bff")
        .setPlatform("w".repeat(33)).addEvents(event).build())).isInstanceOf(StatusRuntimeException.class)
        .hasMessage("INVALID_ARGUMENT: platform: 33 bytes (expected: at most 32)");
  }

  @Test
  void reportsAreWrittenThroughTheNodesWritePathAndReadBack() {
    var stub = HistoryGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS);
    PlayEvent event = Frames.event(Business.ARTICLE, 9, 3_000, 60_000, System.currentTimeMillis());
    ReportResponse first = stub.report(ReportRequest.newBuilder().setUid(42).setDeviceId("bff").setPlatform("web")
        .addEvents(event).build());
    assertThat(first.getFirstViewList()).containsExactly(true);
    assertThat(first.getFirstToday()).isTrue();

    List<HistoryRecord> records = stub.getProgress(GetProgressRequest.newBuilder().setUid(42)
        .addItems(ItemKey.newBuilder().setBusiness(Business.ARTICLE).setOid(9)).build()).getRecordsList();
    assertThat(records).singleElement().satisfies(r -> {
      assertThat(r.getProgressMs()).isEqualTo(3_000);
      assertThat(r.getDeviceId()).isEqualTo("bff");
    });
    assertThat(node.registry().get("playline.heartbeat.batch.heartbeats").summary().count()).isPositive();
  }

  @Test
  void aBatchAnswersEachRequestAsGetProgressWouldInOrderAndIsValidatedWhole() {
    var stub = HistoryGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS);
    long now = System.currentTimeMillis();
    stub.report(ReportRequest.newBuilder().setUid(4301).addEvents(Frames.event(Business.VIDEO, 1, 1_000, 60_000, now))
        .addEvents(Frames.event(Business.COMIC, 2, 2_000, 60_000, now)).build());
    stub.report(ReportRequest.newBuilder().setUid(4302).addEvents(Frames.event(Business.VIDEO, 1, 5_000, 60_000, now))
        .build());
    ItemKey video1 = ItemKey.newBuilder().setBusiness(Business.VIDEO).setOid(1).build();
    ItemKey comic2 = ItemKey.newBuilder().setBusiness(Business.COMIC).setOid(2).build();
    ItemKey missing = ItemKey.newBuilder().setBusiness(Business.LIVE).setOid(3).build();
    List<GetProgressRequest> requests = List.of(
        GetProgressRequest.newBuilder().setUid(4301).addItems(comic2).addItems(missing).addItems(video1).build(),
        GetProgressRequest.newBuilder().setUid(4302).addItems(video1).addItems(video1).addItems(comic2).build(),
        GetProgressRequest.newBuilder().setUid(4301).build(),
        GetProgressRequest.newBuilder().setUid(4303).addItems(video1).build(),
        GetProgressRequest.newBuilder().setUid(4301).addItems(video1).build());
    List<GetProgressResponse> answers = stub.batchGetProgress(BatchGetProgressRequest.newBuilder()
        .addAllRequests(requests).build()).getResponsesList();
    assertThat(answers).hasSize(requests.size());
    for (int i = 0; i < requests.size(); i++) {
      assertThat(answers.get(i)).as("requests[%s]", i).isEqualTo(stub.getProgress(requests.get(i)));
    }
    assertThat(answers.get(0).getRecordsList()).extracting(HistoryRecord::getProgressMs).containsExactly(2_000L, 1_000L);
    assertThat(answers.get(1).getRecordsList()).extracting(HistoryRecord::getProgressMs).containsExactly(5_000L);
    assertThat(answers.get(3).getRecordsList()).isEmpty();
    assertThat(answers.get(4).getRecordsList()).singleElement().extracting(HistoryRecord::getUid).isEqualTo(4301L);
    assertThat(stub.batchGetProgress(BatchGetProgressRequest.getDefaultInstance()).getResponsesList()).isEmpty();

    BatchGetProgressRequest badUid = BatchGetProgressRequest.newBuilder().addAllRequests(requests)
        .addRequests(GetProgressRequest.newBuilder().setUid(0).addItems(video1)).build();
    assertThatThrownBy(() -> stub.batchGetProgress(badUid)).isInstanceOf(StatusRuntimeException.class)
        .hasMessage("INVALID_ARGUMENT: requests[5].uid: 0 (expected: > 0)");
    GetProgressRequest.Builder tooMany = GetProgressRequest.newBuilder().setUid(4301);
    for (int oid = 1; oid <= 101; oid++) {
      tooMany.addItems(ItemKey.newBuilder().setBusiness(Business.VIDEO).setOid(oid));
    }
    assertThatThrownBy(() -> stub.batchGetProgress(BatchGetProgressRequest.newBuilder().addRequests(requests.get(0))
        .addRequests(tooMany).build())).isInstanceOf(StatusRuntimeException.class)
        .hasMessage("INVALID_ARGUMENT: requests[1].items: 101 entries (expected: at most 100)");
    BatchGetProgressRequest.Builder overLimit = BatchGetProgressRequest.newBuilder();
    for (int i = 0; i < 101; i++) {
      overLimit.addRequests(requests.get(i % requests.size()));
    }
    assertThatThrownBy(() -> stub.batchGetProgress(overLimit.build())).isInstanceOf(StatusRuntimeException.class)
        .hasMessage("INVALID_ARGUMENT: requests: 101 entries (expected: at most 100)");
    // The largest batch the default limits take: 10 requests of 100 items, 1000 in all; one item more is refused.
    BatchGetProgressRequest.Builder largest = BatchGetProgressRequest.newBuilder();
    for (int i = 0; i < 10; i++) {
      GetProgressRequest.Builder full = GetProgressRequest.newBuilder().setUid(4301);
      for (int oid = 1; oid <= 100; oid++) {
        full.addItems(ItemKey.newBuilder().setBusiness(Business.VIDEO).setOid(oid));
      }
      largest.addRequests(full);
    }
    assertThat(stub.batchGetProgress(largest.build()).getResponsesList()).hasSize(10)
        .allSatisfy(one -> assertThat(one.getRecordsList()).singleElement().extracting(HistoryRecord::getProgressMs)
            .isEqualTo(1_000L));
    assertThatThrownBy(() -> stub.batchGetProgress(largest.addRequests(requests.get(4)).build()))
        .isInstanceOf(StatusRuntimeException.class)
        .hasMessage("INVALID_ARGUMENT: requests: 1001 items in all (expected: at most 1000)");
    assertThat(node.registry().get("playline.query.requests").tag("kind", "progress_batch").tag("outcome", "invalid")
        .counter().count()).isEqualTo(4);
    assertThat(node.registry().get("playline.query.tier").tag("kind", "progress_batch").tag("tier", "redis")
        .counter().count()).as("one per lookup: 4 of the first batch, 10 of the largest").isEqualTo(14);
  }

  @Test
  void itemStatsAreZerosBeforeAnyJobCountedAndValidated() {
    var stub = HistoryGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS);
    ItemKey item = ItemKey.newBuilder().setBusiness(Business.VIDEO).setOid(5).build();
    assertThat(stub.getItemStats(GetItemStatsRequest.newBuilder().addItems(item).addItems(item).build()).getStatsList())
        .containsExactly(ItemStats.newBuilder().setItem(item).build());
    assertThatThrownBy(() -> stub.getItemStats(GetItemStatsRequest.newBuilder()
        .addItems(ItemKey.newBuilder().setBusiness(Business.VIDEO)).build())).isInstanceOf(StatusRuntimeException.class)
        .hasMessage("INVALID_ARGUMENT: items[0].oid: 0 (expected: > 0)"); // the code once, not repeated
  }

  /** What a call with {@code authorization} gets: OK, or the status code and description. */
  private String callWith(String authorization) throws InterruptedException {
    ManagedChannel c = channel(authorization);
    try {
      HistoryGrpc.newBlockingStub(c).withDeadlineAfter(10, TimeUnit.SECONDS).getProgress(GetProgressRequest.newBuilder()
          .setUid(42).addItems(ItemKey.newBuilder().setBusiness(Business.VIDEO).setOid(1)).build());
      return "OK";
    } catch (StatusRuntimeException e) {
      return e.getStatus().getCode() + ": " + e.getStatus().getDescription();
    } finally {
      c.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  @Test
  void everyHistoryCallNeedsAServiceTokenAndHealthNeedsNone() throws Exception {
    Instant now = Instant.now();
    String other = "another-key-of-32-bytes-at-least-0123456789";
    JWTClaimsSet otherAudience = new JWTClaimsSet.Builder().subject("svc").audience("something-else")
        .expirationTime(Date.from(now.plusSeconds(60))).build();

    assertThat(callWith("Bearer " + ServiceTokens.mint(API_SECRET, "svc", Duration.ofMinutes(1), now))).isEqualTo("OK");
    assertThat(callWith(null)).startsWith("UNAUTHENTICATED: missing credentials");
    assertThat(callWith("Basic c3ZjOnB3")).startsWith("UNAUTHENTICATED: authorization is not a bearer token");
    assertThat(callWith("Bearer " + playerToken(TestApi.PLAYER_SECRET, 42, now)))
        .as("a player token").startsWith("UNAUTHENTICATED: not a service token: a player token (sub is a uid); "
            + "the internal API takes service tokens");
    assertThat(callWith("Bearer " + playerToken(API_SECRET, 42, now)))
        .as("a player-shaped token, even signed with the API key").startsWith("UNAUTHENTICATED: not a service token");
    assertThat(callWith("Bearer " + Hs256.sign(ApiConfig.SECRET_KEY, API_SECRET, otherAudience)))
        .startsWith("UNAUTHENTICATED: not a service token");
    assertThat(callWith("Bearer " + ServiceTokens.mint(other, "svc", Duration.ofMinutes(1), now)))
        .startsWith("UNAUTHENTICATED: bad token signature");
    assertThat(callWith("Bearer " + ServiceTokens.mint(API_SECRET, "svc", Duration.ofMinutes(1),
        now.minus(Duration.ofHours(1))))).startsWith("UNAUTHENTICATED: token expired");
    assertThat(callWith("Bearer not-a-jwt")).startsWith("UNAUTHENTICATED: malformed token");

    // Health stays open to load balancers; reflection (the schema) does not.
    assertThat(HealthGrpc.newBlockingStub(bare).withDeadlineAfter(10, TimeUnit.SECONDS)
        .check(HealthCheckRequest.getDefaultInstance()).getStatus()).isEqualTo(ServingStatus.SERVING);
    assertThatThrownBy(() -> services(bare)).hasRootCauseInstanceOf(StatusRuntimeException.class)
        .rootCause().hasMessageContaining("UNAUTHENTICATED");
    assertThat(node.registry().find("playline.api.auth.refused").counters().stream()
        .mapToDouble(c -> c.count()).sum()).isEqualTo(9);
  }

  @Test
  void servesHealthAndReflectionButNoPlayers() throws Exception {
    var health = HealthGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS);
    assertThat(health.check(HealthCheckRequest.getDefaultInstance()).getStatus()).isEqualTo(ServingStatus.SERVING);
    assertThat(health.check(HealthCheckRequest.newBuilder().setService(HistoryGrpc.SERVICE_NAME).build()).getStatus())
        .isEqualTo(ServingStatus.SERVING);
    assertThat(services()).contains(HistoryGrpc.SERVICE_NAME, "grpc.health.v1.Health");
    assertThat(node.readiness().snapshot())
        .containsOnlyKeys(ApiServer.READINESS_COMPONENT)
        .containsEntry(ApiServer.READINESS_COMPONENT, new Readiness.Component(true, true));
  }

  @Test
  void reflectionAnswersOverV1AlphaForOlderClientsWithATokenOnly() throws Exception {
    assertThat(servicesV1Alpha(channel)).contains(HistoryGrpc.SERVICE_NAME, "grpc.health.v1.Health",
        "grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection");
    assertThatThrownBy(() -> servicesV1Alpha(bare)).hasRootCauseInstanceOf(StatusRuntimeException.class)
        .rootCause().hasMessageContaining("UNAUTHENTICATED");
  }

  /** The services a {@code grpc.reflection.v1alpha} client (older grpcurl, Postman) lists. */
  private static List<String> servicesV1Alpha(ManagedChannel over) throws Exception {
    CompletableFuture<List<String>> services = new CompletableFuture<>();
    StreamObserver<io.grpc.reflection.v1alpha.ServerReflectionRequest> requests =
        io.grpc.reflection.v1alpha.ServerReflectionGrpc.newStub(over).serverReflectionInfo(
            new StreamObserver<io.grpc.reflection.v1alpha.ServerReflectionResponse>() {
              @Override
              public void onNext(io.grpc.reflection.v1alpha.ServerReflectionResponse r) {
                services.complete(r.getListServicesResponse().getServiceList().stream()
                    .map(io.grpc.reflection.v1alpha.ServiceResponse::getName).toList());
              }

              @Override
              public void onError(Throwable t) {
                services.completeExceptionally(t);
              }

              @Override
              public void onCompleted() {}
            });
    requests.onNext(io.grpc.reflection.v1alpha.ServerReflectionRequest.newBuilder().setListServices("*").build());
    List<String> names = services.get(10, TimeUnit.SECONDS);
    requests.onCompleted();
    return names;
  }

  @Test
  void refusesANodeWithoutQueries(RedisNamespace redis, KafkaNamespace kafka, HBaseNamespace hbase) {
    ConfigSource source = source(redis, kafka, hbase);
    try (Node withoutHBase = Node.builder(NodeConfig.from(source))
        .core(Node.historyCore(source, redis.redisUri(), kafka.bootstrapServers(), "api-test", null)).start()) {
      assertThatThrownBy(() -> ApiServer.attach(withoutHBase, new ApiConfig(API_SECRET, "127.0.0.1")))
          .isInstanceOf(IllegalStateException.class).hasMessageContaining("needs a node with queries");
    }
  }

  @Test
  void onANodeWithoutPlayersTheApiKeepsTheNodesReadPath() {
    // attach (the api role's) opened no Redis client of the API's own: the core still has its one.
    HistoryCore core = node.historyCore();
    assertThat(core.historyOn(node.loops().api().first())).isNotNull();
  }

  @Test
  void refusesAClosedNode(RedisNamespace redis, KafkaNamespace kafka, HBaseNamespace hbase) {
    ConfigSource source = source(redis, kafka, hbase);
    Node closed = Node.builder(NodeConfig.from(source)).core(Node.historyCore(source, redis.redisUri(),
        kafka.bootstrapServers(), "api-test", hbase.configuration())).start();
    closed.close();
    assertThatThrownBy(() -> ApiServer.attachBesidePlayers(closed, new ApiConfig(API_SECRET, "127.0.0.1")))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("the node is closed");
    assertThatThrownBy(() -> ApiServer.attach(closed, new ApiConfig(API_SECRET, "127.0.0.1")))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("the node is closed");
  }

  private List<String> services() throws Exception {
    return services(channel);
  }

  private List<String> services(ManagedChannel over) throws Exception {
    CompletableFuture<List<String>> services = new CompletableFuture<>();
    StreamObserver<ServerReflectionRequest> requests = ServerReflectionGrpc.newStub(over).serverReflectionInfo(
        new StreamObserver<ServerReflectionResponse>() {
          @Override
          public void onNext(ServerReflectionResponse r) {
            services.complete(r.getListServicesResponse().getServiceList().stream().map(ServiceResponse::getName).toList());
          }

          @Override
          public void onError(Throwable t) {
            services.completeExceptionally(t);
          }

          @Override
          public void onCompleted() {}
        });
    requests.onNext(ServerReflectionRequest.newBuilder().setListServices("*").build());
    List<String> names = services.get(10, TimeUnit.SECONDS);
    requests.onCompleted();
    return names;
  }
}
