package io.playline.core.query;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.google.protobuf.InvalidProtocolBufferException;
import io.playline.core.config.QueryConfig;
import io.playline.proto.v1.BatchGetProgressRequest;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.ClearHistoryRequest;
import io.playline.proto.v1.Cursor;
import io.playline.proto.v1.DeleteHistoryRequest;
import io.playline.proto.v1.GetProgressRequest;
import io.playline.proto.v1.ItemKey;
import io.playline.proto.v1.ListHistoryRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Fuzzes every check of {@link RequestValidator} (the one place where all transports' history
 * requests are validated) with requests decoded from fuzzed wire bytes and built from fuzzed
 * values, against an oracle written from the API's documented rules: a request is accepted exactly
 * when the oracle accepts it, an accepted request yields what the oracle expects, a refused one
 * throws {@link InvalidRequestException} with a message naming the offending field, and nothing
 * else is ever thrown.
 *
 * <p>Regression mode (every build) replays the seeds in {@code RequestValidatorFuzzTestInputs};
 * {@code bin/fuzz history-core RequestValidatorFuzzTest} fuzzes (docs/security.md, "Fuzzing").
 */
class RequestValidatorFuzzTest {
  /** Small limits, so the fuzzer reaches them with short inputs. */
  private static final QueryConfig CONFIG = new QueryConfig(8, 3, 10, 5, 12, false, 100, Duration.ofSeconds(1),
      Duration.ofSeconds(30));
  private static final RequestValidator VALIDATOR = new RequestValidator(CONFIG);
  /** The businesses the API documents (common.proto); 0 and anything else are refused. */
  private static final Set<Integer> KNOWN = Set.of(1, 2, 3, 4, 5, 6);

  @FuzzTest(maxExecutions = 2_000_000)
  void requests(FuzzedDataProvider data) {
    switch (data.consumeInt(0, 6)) {
      case 0 -> progressOrDelete(or(wire(data, GetProgressRequest.parser()),
          () -> GetProgressRequest.newBuilder().setUid(uid(data)).addAllItems(items(data)).build()));
      case 1 -> progressOrDelete(or(wire(data, DeleteHistoryRequest.parser()),
          () -> DeleteHistoryRequest.newBuilder().setUid(uid(data)).addAllItems(items(data)).build()));
      case 2 -> list(or(wire(data, ListHistoryRequest.parser()), () -> listRequest(data)));
      case 3 -> clear(or(wire(data, ClearHistoryRequest.parser()),
          () -> ClearHistoryRequest.newBuilder().setUid(uid(data)).addAllBusinessesValue(businesses(data))
              .setAllBusinesses(data.consumeBoolean()).build()));
      case 4 -> batch(or(wire(data, BatchGetProgressRequest.parser()), () -> batchRequest(data)));
      default -> list(listRequest(data));
    }
  }

  private static BatchGetProgressRequest batchRequest(FuzzedDataProvider data) {
    BatchGetProgressRequest.Builder b = BatchGetProgressRequest.newBuilder();
    int n = data.consumeInt(0, CONFIG.batchMaxRequests() + 1);
    for (int i = 0; i < n && data.remainingBytes() > 0; i++) {
      b.addRequests(GetProgressRequest.newBuilder().setUid(uid(data)).addAllItems(items(data)));
    }
    return b.build();
  }

  /**
   * A batch: at most so many requests and items in all, the first bad request named with its index,
   * else each one's distinct items.
   */
  private static void batch(BatchGetProgressRequest r) {
    int named = r.getRequestsList().stream().mapToInt(GetProgressRequest::getItemsCount).sum();
    String problem = r.getRequestsCount() > CONFIG.batchMaxRequests() || named > CONFIG.batchMaxItems() ? "requests"
        : null;
    List<List<ItemKey>> expected = new ArrayList<>();
    for (int i = 0; i < r.getRequestsCount() && problem == null; i++) {
      GetProgressRequest one = r.getRequests(i);
      String own = uidProblem(one.getUid());
      own = own != null ? own : itemsProblem(one.getItemsList());
      problem = own == null ? null : "requests[" + i + "]." + own;
      expected.add(distinct(one.getItemsList()));
    }
    expect(problem, () -> VALIDATOR.progressBatch(r.getRequestsList()), expected);
  }

  private static <T> T or(@Nullable T parsed, java.util.function.Supplier<T> built) {
    return parsed != null ? parsed : built.get();
  }

  /** A request decoded from the rest of the input half of the time; null when the bytes are not one. */
  private static <T> @Nullable T wire(FuzzedDataProvider data, com.google.protobuf.Parser<T> parser) {
    if (!data.consumeBoolean()) {
      return null;
    }
    try {
      return parser.parseFrom(data.consumeRemainingAsBytes());
    } catch (InvalidProtocolBufferException e) {
      return null;
    }
  }

  private static long uid(FuzzedDataProvider data) {
    return data.pickValue(new long[] {1, Long.MAX_VALUE, 0, -1, Long.MIN_VALUE, data.consumeLong()});
  }

  private static List<ItemKey> items(FuzzedDataProvider data) {
    List<ItemKey> items = new ArrayList<>();
    int n = data.consumeInt(0, CONFIG.maxItems() + 2);
    for (int i = 0; i < n && data.remainingBytes() > 0; i++) {
      items.add(ItemKey.newBuilder().setBusinessValue(data.consumeInt(-1, 8))
          .setOid(data.consumeBoolean() ? data.consumeLong(1, 4) : data.consumeLong()).build());
    }
    return items;
  }

  private static List<Integer> businesses(FuzzedDataProvider data) {
    List<Integer> values = new ArrayList<>();
    int n = data.consumeInt(0, CONFIG.maxItems() + 2);
    for (int i = 0; i < n && data.remainingBytes() > 0; i++) {
      values.add(data.consumeBoolean() ? data.consumeInt(-1, 8) : data.consumeInt());
    }
    return values;
  }

  private static ListHistoryRequest listRequest(FuzzedDataProvider data) {
    ListHistoryRequest.Builder b = ListHistoryRequest.newBuilder().setUid(uid(data))
        .addAllBusinessesValue(businesses(data))
        .setLimit(data.pickValue(new int[] {0, 1, CONFIG.listMaxLimit(), CONFIG.listMaxLimit() + 1, -1,
            data.consumeInt()}));
    if (data.consumeBoolean()) {
      List<ItemKey> item = items(data);
      b.setAfter(Cursor.newBuilder().setViewTimeMs(data.consumeBoolean() ? data.consumeLong(-2, 2) : data.consumeLong())
          .setItem(item.isEmpty() ? ItemKey.getDefaultInstance() : item.get(0)));
    }
    return b.build();
  }

  private static void progressOrDelete(GetProgressRequest r) {
    items(r.getUid(), r.getItemsList());
  }

  private static void progressOrDelete(DeleteHistoryRequest r) {
    items(r.getUid(), r.getItemsList());
  }

  /** Progress and delete requests: a uid and items. */
  private static void items(long uid, List<ItemKey> items) {
    String problem = uidProblem(uid);
    problem = problem != null ? problem : itemsProblem(items);
    expect(problem, () -> {
      VALIDATOR.uid(uid);
      return VALIDATOR.items(items);
    }, distinct(items));
  }

  private static void clear(ClearHistoryRequest r) {
    String problem = uidProblem(r.getUid());
    if (problem == null && r.getAllBusinesses() == (r.getBusinessesCount() != 0)) {
      problem = r.getAllBusinesses() ? "all_businesses" : "businesses";
    }
    problem = problem != null ? problem : businessesProblem(r.getBusinessesValueList());
    expect(problem, () -> {
      VALIDATOR.uid(r.getUid());
      return VALIDATOR.clearScope(r.getBusinessesList(), r.getAllBusinesses());
    }, distinctBusinesses(r.getBusinessesValueList()));
  }

  private static void list(ListHistoryRequest r) {
    String problem = uidProblem(r.getUid());
    problem = problem != null ? problem : businessesProblem(r.getBusinessesValueList());
    if (problem == null && r.hasAfter()) {
      Cursor c = r.getAfter();
      problem = c.getViewTimeMs() < 0 ? "after.view_time_ms"
          : !KNOWN.contains(c.getItem().getBusinessValue()) ? "after.item.business"
          : c.getItem().getOid() <= 0 ? "after.item.oid" : null;
    }
    if (problem == null && (r.getLimit() < 0 || r.getLimit() > CONFIG.listMaxLimit())) {
      problem = "limit";
    }
    int expectedLimit = r.getLimit() == 0 ? CONFIG.listDefaultLimit() : r.getLimit();
    expect(problem, () -> {
      VALIDATOR.uid(r.getUid());
      List<Business> filter = VALIDATOR.businesses(r.getBusinessesList());
      TimelinePosition position = VALIDATOR.cursor(r.hasAfter() ? r.getAfter() : null);
      if (r.hasAfter()) {
        // The position the validator hands the pager continues after exactly this cursor.
        assertThat(position).isNotNull();
        assertThat(position.toCursor()).isEqualTo(Cursor.newBuilder().setViewTimeMs(r.getAfter().getViewTimeMs())
            .setItem(ItemKey.newBuilder().setBusinessValue(r.getAfter().getItem().getBusinessValue())
                .setOid(r.getAfter().getItem().getOid())).build());
      }
      return List.of(filter, VALIDATOR.limit(r.getLimit()));
    }, List.of(distinctBusinesses(r.getBusinessesValueList()), expectedLimit));
  }

  private static @Nullable String uidProblem(long uid) {
    return uid <= 0 ? "uid" : null;
  }

  private static @Nullable String itemsProblem(List<ItemKey> items) {
    if (items.size() > CONFIG.maxItems()) {
      return "items";
    }
    for (int i = 0; i < items.size(); i++) {
      if (!KNOWN.contains(items.get(i).getBusinessValue())) {
        return "items[" + i + "].business";
      }
      if (items.get(i).getOid() <= 0) {
        return "items[" + i + "].oid";
      }
    }
    return null;
  }

  private static @Nullable String businessesProblem(List<Integer> values) {
    if (values.size() > CONFIG.maxItems()) {
      return "businesses";
    }
    for (int i = 0; i < values.size(); i++) {
      if (!KNOWN.contains(values.get(i))) {
        return "businesses[" + i + "]";
      }
    }
    return null;
  }

  /** The distinct items by (business, oid), first seen first: what a valid request asks for. */
  private static List<ItemKey> distinct(List<ItemKey> items) {
    Set<List<Long>> seen = new LinkedHashSet<>();
    List<ItemKey> out = new ArrayList<>();
    for (ItemKey item : items) {
      if (seen.add(List.of((long) item.getBusinessValue(), item.getOid()))) {
        out.add(ItemKey.newBuilder().setBusinessValue(item.getBusinessValue()).setOid(item.getOid()).build());
      }
    }
    return out;
  }

  private static List<Business> distinctBusinesses(List<Integer> values) {
    Set<Business> out = new LinkedHashSet<>();
    for (int v : values) {
      Business b = Business.forNumber(v);
      if (b != null) {
        out.add(b);
      }
    }
    return new ArrayList<>(out);
  }

  private interface Check {
    Object run();
  }

  private static void expect(@Nullable String problem, Check check, Object expected) {
    Object result;
    try {
      result = check.run();
    } catch (InvalidRequestException e) {
      assertThat(problem).as("refused a request the rules accept: %s", e.getMessage()).isNotNull();
      assertThat(e.getMessage()).as("the message names the field").startsWith(problem + ":");
      return;
    }
    assertThat(problem).as("accepted a request the rules refuse").isNull();
    assertThat(result).isEqualTo(expected);
  }
}
