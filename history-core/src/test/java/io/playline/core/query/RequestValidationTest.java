package io.playline.core.query;

import static io.playline.core.query.QueryTestEnv.failure;
import static io.playline.core.query.QueryTestEnv.item;
import static org.assertj.core.api.Assertions.assertThat;

import io.playline.proto.v1.Business;
import io.playline.proto.v1.Cursor;
import io.playline.proto.v1.ItemKey;
import io.playline.testing.HBaseNamespace;
import io.playline.testing.RealHBaseExtension;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Every transport gets the same checks and client-safe messages; nothing invalid reaches a store. */
@ExtendWith({RealRedisExtension.class, RealHBaseExtension.class})
class RequestValidationTest {
  private QueryTestEnv env;
  private HistoryService service;

  @BeforeEach
  void setUp(RedisNamespace redis, HBaseNamespace hbase) {
    env = new QueryTestEnv(redis, hbase, Map.of("query.max.items", "3", "query.list.max.limit", "50",
        "query.list.default.limit", "10"));
    service = env.service;
  }

  @AfterEach
  void tearDown() {
    env.close();
  }

  private static void assertInvalid(CompletionStage<?> stage, String message) {
    assertThat(failure(stage)).isInstanceOf(InvalidRequestException.class).hasMessage(message);
  }

  @Test
  void uidMustBePositiveEverywhere() {
    String message = "uid: 0 (expected: > 0)";
    assertInvalid(service.progress(0, List.of()), message);
    assertInvalid(service.list(0, List.of(), null, 0), message);
    assertInvalid(service.delete(0, List.of()), message);
    assertInvalid(service.clear(0, List.of(), true), message);
    assertInvalid(service.setPaused(0, true), message);
    assertInvalid(service.paused(-7), "uid: -7 (expected: > 0)");
  }

  @Test
  void itemsNeedAKnownBusinessAPositiveOidAndABoundedCount() {
    assertInvalid(service.progress(1, List.of(item(Business.VIDEO, 1), ItemKey.newBuilder().setOid(5).build())),
        "items[1].business: 0 (expected: a known business)");
    assertInvalid(service.delete(1, List.of(ItemKey.newBuilder().setBusinessValue(42).setOid(5).build())),
        "items[0].business: 42 (expected: a known business)");
    assertInvalid(service.progress(1, List.of(item(Business.VIDEO, 0))), "items[0].oid: 0 (expected: > 0)");
    List<ItemKey> four = new ArrayList<>();
    for (int i = 1; i <= 4; i++) {
      four.add(item(Business.VIDEO, i));
    }
    assertInvalid(service.delete(1, four), "items: 4 entries (expected: at most 3)");
    assertThat(env.sink.ops()).isEmpty();
  }

  @Test
  void aClearNamesItsScopeExplicitly() {
    assertInvalid(service.clear(1, List.of(), false),
        "businesses: empty (expected: the businesses to clear, or all_businesses: true to clear every business)");
    assertInvalid(service.clear(1, List.of(Business.VIDEO), true),
        "all_businesses: true with businesses: 1 entries (expected: one or the other)");
    assertThat(env.sink.ops()).isEmpty();
  }

  @Test
  void businessesMustBeKnown() {
    assertInvalid(service.clear(1, List.of(Business.VIDEO, Business.BUSINESS_UNSPECIFIED), false),
        "businesses[1]: 0 (expected: a known business)");
    assertInvalid(service.clear(1, List.of(Business.UNRECOGNIZED), false),
        "businesses[0]: unrecognized (expected: a known business)");
    assertInvalid(service.list(1, List.of(Business.UNRECOGNIZED), null, 0),
        "businesses[0]: unrecognized (expected: a known business)");
    assertThat(env.sink.ops()).isEmpty();
  }

  @Test
  void limitIsZeroForTheDefaultOrWithinTheConfiguredMaximum() {
    String expected = "(expected: 0 for the default 10, or 1..50)";
    assertInvalid(service.list(1, List.of(), null, -1), "limit: -1 " + expected);
    assertInvalid(service.list(1, List.of(), null, 51), "limit: 51 " + expected);
    assertThat(QueryTestEnv.join(service.list(1, List.of(), null, 50)).getRecordsCount()).isZero();
  }

  @Test
  void cursorsTheServerNeverHandsOutAreRejected() {
    Cursor negative = Cursor.newBuilder().setViewTimeMs(-1).setItem(item(Business.VIDEO, 1)).build();
    assertInvalid(service.list(1, List.of(), negative, 5),
        "after.view_time_ms: -1 (expected: >= 0; pass a page's next cursor unchanged)");
    Cursor unknown = Cursor.newBuilder().setViewTimeMs(5)
        .setItem(ItemKey.newBuilder().setBusinessValue(99).setOid(1)).build();
    assertInvalid(service.list(1, List.of(), unknown, 5), "after.item.business: 99 (expected: a known business)");
    Cursor noItem = Cursor.newBuilder().setViewTimeMs(5).build();
    assertInvalid(service.list(1, List.of(), noItem, 5), "after.item.business: 0 (expected: a known business)");
    assertThat(env.counter("playline.query.requests", "kind", "list", "outcome", "invalid")).isEqualTo(3);
  }
}
