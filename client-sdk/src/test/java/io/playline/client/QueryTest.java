package io.playline.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.playline.proto.lite.v1.Business;
import io.playline.proto.lite.v1.Error.Code;
import io.playline.proto.lite.v1.HistoryPage;
import io.playline.proto.lite.v1.HistoryRecord;
import io.playline.proto.lite.v1.ItemKey;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Queries over the stream against a real gateway: each future is matched to its answer by seq,
 * an {@code Error} answer fails only its own future with a typed {@link PlaylineException}, and
 * the connection stays usable. While the gateway does not serve a query kind yet it answers
 * {@code UNAVAILABLE}, and that is what is checked; once it does, the real answers are.
 */
@ExtendWith(RealRedisExtension.class)
class QueryTest {
  private static final long TIMEOUT_S = 10;

  @ParameterizedTest
  @EnumSource(Wire.class)
  void queriesAreAnsweredOverTheStream(Wire transport, RedisNamespace ns) throws Exception {
    long uid = 901;
    Recorder events = new Recorder();
    try (GatewayFixture gateway = new GatewayFixture(ns);
        AbstractPlaylineClient client = gateway.client(transport, uid, "phone").listener(events).build()) {
      CompletableFuture<List<HistoryRecord>> early = client.progress(List.of(item(10))); // sent once connected
      client.report(Business.VIDEO, 10, 4_000, 600_000);
      client.report(Business.VIDEO, 11, 1_000, 600_000);
      client.flush().get(TIMEOUT_S, TimeUnit.SECONDS);
      await(early); // answered either way; whether it saw the report is a race with the write

      Answer<List<HistoryRecord>> progress = await(client.progress(List.of(item(10), item(12))));
      if (progress.served()) {
        assertThat(progress.value()).extracting(HistoryRecord::getOid, HistoryRecord::getProgressMs)
            .containsExactly(tuple(10L, 4_000L));
      }
      Answer<HistoryPage> page = await(client.history(List.of(Business.VIDEO), null, 10));
      if (page.served()) {
        List<HistoryRecord> records = page.value().getRecordsList();
        assertThat(records).extracting(HistoryRecord::getOid).containsExactlyInAnyOrder(10L, 11L);
        assertThat(records.get(0).getViewTimeMs()).isGreaterThanOrEqualTo(records.get(1).getViewTimeMs());
      }
      if (await(client.delete(List.of(item(11)))).served() && progress.served()) {
        assertThat(await(client.progress(List.of(item(11)))).value()).isEmpty();
      }
      await(client.clear(List.of(Business.COMIC)));
      assertThatThrownBy(() -> client.clear(List.of())).as("an empty list is not 'everything'")
          .isInstanceOf(IllegalArgumentException.class);
      await(client.clearAll());
      client.report(Business.VIDEO, 10, 5_000, 600_000);
      client.flush().get(TIMEOUT_S, TimeUnit.SECONDS); // the connection stayed usable
      assertThat(client.state()).isEqualTo(ConnectionState.CONNECTED);
      assertThat(events.count(ConnectionState.CONNECTED)).isEqualTo(1);
    }
  }

  /** A query's outcome: served (with its value; null for {@code Done}), or not served by this gateway yet. */
  private record Answer<T>(boolean served, @Nullable T value) {}

  /** Waits for the answer; any failure other than "not served yet" fails the test. */
  private static <T> Answer<T> await(CompletableFuture<T> f) throws Exception {
    try {
      return new Answer<>(true, f.get(TIMEOUT_S, TimeUnit.SECONDS));
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(PlaylineException.class);
      PlaylineException error = (PlaylineException) e.getCause();
      assertThat(error.code()).isEqualTo(Code.UNAVAILABLE);
      assertThat(error.getMessage()).contains("not served");
      return new Answer<>(false, null);
    }
  }

  static ItemKey item(long oid) {
    return ItemKey.newBuilder().setBusiness(Business.VIDEO).setOid(oid).build();
  }
}
