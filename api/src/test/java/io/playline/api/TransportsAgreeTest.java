package io.playline.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import io.playline.proto.v1.BatchGetProgressRequest;
import io.playline.proto.v1.ClearHistoryRequest;
import io.playline.proto.v1.Cursor;
import io.playline.proto.v1.DeleteHistoryRequest;
import io.playline.proto.v1.GetItemStatsRequest;
import io.playline.proto.v1.GetPausedRequest;
import io.playline.proto.v1.GetProgressRequest;
import io.playline.proto.v1.ItemKey;
import io.playline.proto.v1.ListHistoryRequest;
import io.playline.proto.v1.PlayEvent;
import io.playline.proto.v1.ReportRequest;
import io.playline.proto.v1.SetPausedRequest;
import io.playline.testing.HBaseNamespace;
import io.playline.testing.KafkaNamespace;
import io.playline.testing.RealHBaseExtension;
import io.playline.testing.RealKafkaExtension;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The same request gets the same answer and leaves the same stored state on every transport of the
 * internal API: random sequences of requests (valid and not: unknown and unspecified businesses,
 * bad uids, oids and limits, in a batch's requests too, clears with and without their scope,
 * pauses, reports) go over gRPC, Connect binary and Connect JSON to one real node, each transport
 * on a user of its own starting from nothing; every answer (status code and message, or the
 * response) and, at the end, every user's whole history must be the same but for the uid. The
 * seed is printed with any difference ({@code -Dplayline.differential.seed=N} replays it); bounded
 * by {@value #STEPS} steps and {@value #BUDGET_SECONDS} s.
 */
@ExtendWith({RealRedisExtension.class, RealKafkaExtension.class, RealHBaseExtension.class})
class TransportsAgreeTest {
  private static final int STEPS = 150;
  private static final int BUDGET_SECONDS = 40;
  /** Businesses as numbers: defined ones, unspecified (0) and ones the API does not define. */
  private static final int[] BUSINESSES = {1, 2, 3, 4, 5, 6, 1, 2, 0, 7, 99, -1};
  private final long eventBase = System.currentTimeMillis() - Duration.ofHours(1).toMillis();
  private ApiTransports transports;

  @BeforeEach
  void start(RedisNamespace redis, KafkaNamespace kafka, HBaseNamespace hbase) {
    transports = ApiTransports.start(redis, kafka, hbase);
  }

  @AfterEach
  void stop() throws InterruptedException {
    transports.close();
  }

  @Test
  void everyTransportGivesTheSameAnswersAndLeavesTheSameHistory() throws Exception {
    long seed = Long.getLong("playline.differential.seed", System.nanoTime());
    Random random = new Random(seed);
    long[] uids = {46_100, 46_200, 46_300};
    List<ApiTransports.Transport> each = transports.all();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BUDGET_SECONDS);
    int steps = 0;
    for (; steps < STEPS && System.nanoTime() < deadline; steps++) {
      Message request = request(random);
      String method = method(request);
      List<ApiTransports.Answer> answers = new ArrayList<>();
      for (int t = 0; t < each.size(); t++) {
        answers.add(each.get(t).call(method, asUser(request, uids[t])));
      }
      assertThat(answers).as("seed %s, step %s: %s %s", seed, steps, method, request).allSatisfy(a ->
          assertThat(a).isEqualTo(answers.get(0)));
    }
    assertThat(steps).as("steps run in the budget").isPositive();
    List<ApiTransports.Answer> histories = new ArrayList<>();
    for (long uid : uids) {
      histories.add(transports.grpc("ListHistory", ListHistoryRequest.newBuilder().setUid(uid).setLimit(100).build()));
    }
    assertThat(histories).as("seed %s: the stored histories", seed).allSatisfy(h ->
        assertThat(h).isEqualTo(histories.get(0)));
  }

  /** {@code request} for {@code uid} when it names the generic user (uid 1); a bad uid stays as it is. */
  private static Message asUser(Message request, long uid) {
    if (request instanceof BatchGetProgressRequest batch) {
      BatchGetProgressRequest.Builder b = BatchGetProgressRequest.newBuilder();
      batch.getRequestsList().forEach(one -> b.addRequests((GetProgressRequest) asUser(one, uid)));
      return b.build();
    }
    FieldDescriptor field = request.getDescriptorForType().findFieldByName("uid");
    return field != null && (long) request.getField(field) == 1 ? request.toBuilder().setField(field, uid).build()
        : request;
  }

  private static String method(Message request) {
    String name = request.getDescriptorForType().getName();
    return name.substring(0, name.length() - "Request".length());
  }

  // ---- generators -------------------------------------------------------------------------

  private Message request(Random r) {
    return switch (r.nextInt(10)) {
      case 0, 1 -> ReportRequest.newBuilder().setUid(uid(r)).setDeviceId("d" + r.nextInt(3))
          .addAllEvents(list(r, 3, () -> event(r))).build();
      case 2 -> GetProgressRequest.newBuilder().setUid(uid(r)).addAllItems(list(r, 4, () -> item(r))).build();
      case 3 -> list(r);
      case 4 -> DeleteHistoryRequest.newBuilder().setUid(uid(r)).addAllItems(list(r, 2, () -> item(r))).build();
      case 5 -> {
        ClearHistoryRequest.Builder b = ClearHistoryRequest.newBuilder().setUid(uid(r))
            .addAllBusinessesValue(list(r, 2, () -> business(r)));
        yield b.setAllBusinesses(r.nextInt(4) == 0).build();
      }
      case 6 -> SetPausedRequest.newBuilder().setUid(uid(r)).setPaused(r.nextInt(3) == 0).build();
      case 7 -> GetPausedRequest.newBuilder().setUid(uid(r)).build();
      case 8 -> BatchGetProgressRequest.newBuilder().addAllRequests(list(r, 3, () ->
          GetProgressRequest.newBuilder().setUid(uid(r)).addAllItems(list(r, 3, () -> item(r))).build())).build();
      default -> GetItemStatsRequest.newBuilder().addAllItems(list(r, 3, () -> item(r))).build();
    };
  }

  private ListHistoryRequest list(Random r) {
    ListHistoryRequest.Builder b = ListHistoryRequest.newBuilder().setUid(uid(r))
        .addAllBusinessesValue(list(r, 2, () -> business(r)))
        .setLimit(new int[] {0, 1, 3, 100, 101, -1}[r.nextInt(6)]);
    if (r.nextInt(4) == 0) {
      b.setAfter(Cursor.newBuilder().setViewTimeMs(r.nextInt(10) == 0 ? -1 : eventBase + r.nextInt(60_000))
          .setItem(item(r)));
    }
    return b.build();
  }

  private PlayEvent event(Random r) {
    return PlayEvent.newBuilder().setBusinessValue(business(r)).setOid(oid(r))
        .setProgressMs(r.nextInt(10) == 0 ? -2 : r.nextInt(60_000)).setDurationMs(60_000)
        .setEventTimeMs(eventBase + r.nextInt(60_000)).build();
  }

  private static ItemKey item(Random r) {
    return ItemKey.newBuilder().setBusinessValue(business(r)).setOid(oid(r)).build();
  }

  /** Mostly the generic user (uid 1, replaced by each transport's own); sometimes an invalid one. */
  private static long uid(Random r) {
    return r.nextInt(12) == 0 ? new long[] {0, -1}[r.nextInt(2)] : 1;
  }

  private static long oid(Random r) {
    return r.nextInt(12) == 0 ? 0 : 1 + r.nextInt(4);
  }

  private static int business(Random r) {
    return BUSINESSES[r.nextInt(BUSINESSES.length)];
  }

  private static <T> List<T> list(Random r, int max, java.util.function.Supplier<T> element) {
    List<T> out = new ArrayList<>();
    for (int i = r.nextInt(max + 1); i > 0; i--) {
      out.add(element.get());
    }
    return out;
  }
}
