package io.playline.gateway.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import io.playline.core.query.InvalidRequestException;
import io.playline.core.store.RetriableStoreException;
import io.playline.gateway.budget.AuthRefusalHold;
import io.playline.gateway.push.RecordingTransport;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.ClearHistory;
import io.playline.proto.v1.Cursor;
import io.playline.proto.v1.DeleteItems;
import io.playline.proto.v1.Error;
import io.playline.proto.v1.Error.Code;
import io.playline.proto.v1.HistoryPage;
import io.playline.proto.v1.HistoryQuery;
import io.playline.proto.v1.HistoryRecord;
import io.playline.proto.v1.ItemKey;
import io.playline.proto.v1.ProgressQuery;
import io.playline.proto.v1.ServerFrame;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A player's stream queries on a hand-written {@link PlayerHistory} and {@link UserLimits}, without
 * Redis: each query is asked for the connection's user, its answer carries the request's seq, a
 * failure is answered with an Error, and deletes spend the user's deletes budget before they reach
 * the history.
 */
class StreamQueriesTest {
  private static final long UID = 42;
  private static final ItemKey VIDEO_7 = ItemKey.newBuilder().setBusiness(Business.VIDEO).setOid(7).build();
  private static final ItemKey VIDEO_8 = ItemKey.newBuilder().setBusiness(Business.VIDEO).setOid(8).build();

  private final EmbeddedChannel channel = new EmbeddedChannel();
  private final RecordingTransport transport = new RecordingTransport(channel.eventLoop());
  private final FakeHistory history = new FakeHistory();
  private final FakeLimits limits = new FakeLimits();
  private final StreamQueries queries = new StreamQueries(transport, history, UID, limits);

  @AfterEach
  void close() {
    channel.finishAndReleaseAll();
  }

  /** The one frame sent since the last call, once the answers that hop onto the connection's loop ran. */
  private ServerFrame answer() {
    channel.runPendingTasks();
    assertThat(transport.sent).hasSize(1);
    return transport.sent.remove(0);
  }

  @Test
  void progressIsAskedForTheConnectionsUserAndAnsweredWithTheRecords() {
    HistoryRecord record = HistoryRecord.newBuilder().setUid(UID).setBusiness(Business.VIDEO).setOid(7)
        .setProgressMs(1_000).build();
    history.progress = CompletableFuture.completedFuture(List.of(record));

    queries.progress(3, ProgressQuery.newBuilder().addItems(VIDEO_7).build());

    ServerFrame frame = answer();
    assertThat(frame.getSeq()).isEqualTo(3);
    assertThat(frame.getProgress().getRecordsList()).containsExactly(record);
    assertThat(history.calls).containsExactly("progress " + UID + " [" + VIDEO_7 + "]");
  }

  @Test
  void aHistoryPageIsAskedWithTheFilterTheCursorAndTheLimit() {
    HistoryPage page = HistoryPage.newBuilder().setHasMore(true).build();
    history.page = CompletableFuture.completedFuture(page);
    Cursor after = Cursor.newBuilder().setViewTimeMs(500).setItem(VIDEO_7).build();

    queries.history(4, HistoryQuery.newBuilder().addBusinesses(Business.VIDEO).setAfter(after).setLimit(10).build());
    assertThat(answer().getHistoryPage()).isEqualTo(page);
    queries.history(5, HistoryQuery.getDefaultInstance());
    assertThat(answer().getSeq()).isEqualTo(5);

    assertThat(history.calls).containsExactly("list " + UID + " [VIDEO] " + after + " 10", "list " + UID + " [] null 0");
  }

  @Test
  void deletesAndClearsSpendTheDeletesBudgetAndAreAnsweredDone() {
    queries.delete(6, DeleteItems.newBuilder().addItems(VIDEO_7).addItems(VIDEO_8).build());
    assertThat(answer().hasDone()).isTrue();
    queries.clear(7, ClearHistory.newBuilder().setAllBusinesses(true).build());
    assertThat(answer().getSeq()).isEqualTo(7);
    // An empty delete still costs one: a client cannot send them for free.
    queries.delete(8, DeleteItems.getDefaultInstance());
    assertThat(answer().hasDone()).isTrue();

    assertThat(limits.spent).containsExactly(2, 1, 1);
    assertThat(history.calls).containsExactly("delete " + UID + " [" + VIDEO_7 + ", " + VIDEO_8 + "]",
        "clear " + UID + " [] true", "delete " + UID + " []");
  }

  @Test
  void overTheDeletesBudgetTheRefusalIsSentAndTheHistoryIsNotAsked() {
    limits.refusal = Error.newBuilder().setCode(Code.RATE_LIMITED).setMessage("too many deletes")
        .setRetryAfterMs(1_000).build();

    queries.delete(9, DeleteItems.newBuilder().addItems(VIDEO_7).build());
    assertThat(answer().getError()).isEqualTo(limits.refusal);
    queries.clear(10, ClearHistory.newBuilder().addBusinesses(Business.VIDEO).build());
    ServerFrame refused = answer();
    assertThat(refused.getSeq()).isEqualTo(10);
    assertThat(refused.getError().getCode()).isEqualTo(Code.RATE_LIMITED);

    assertThat(history.calls).isEmpty();
  }

  @Test
  void aFailedQueryIsAnsweredWithAnErrorAndTheConnectionStaysOpen() {
    history.progress = CompletableFuture.failedFuture(new InvalidRequestException("items: too many"));
    queries.progress(11, ProgressQuery.newBuilder().addItems(VIDEO_7).build());
    ServerFrame invalid = answer();
    assertThat(invalid.getSeq()).isEqualTo(11);
    assertThat(invalid.getError().getCode()).isEqualTo(Code.INVALID_ARGUMENT);
    assertThat(invalid.getError().getMessage()).isEqualTo("items: too many");

    history.page = CompletableFuture.failedFuture(new RetriableStoreException("redis down"));
    queries.history(12, HistoryQuery.getDefaultInstance());
    assertThat(answer().getError().getCode()).isEqualTo(Code.UNAVAILABLE);

    assertThat(transport.closedWith).isNull();
  }

  @Test
  void anEnumNumberTheApiDoesNotDefineIsRefusedBeforeTheHistoryIsAsked() {
    ItemKey unknown = ItemKey.newBuilder().setBusinessValue(999).setOid(7).build();

    queries.progress(13, ProgressQuery.newBuilder().addItems(unknown).build());

    ServerFrame refused = answer();
    assertThat(refused.getError().getCode()).isEqualTo(Code.INVALID_ARGUMENT);
    assertThat(refused.getError().getMessage()).contains("999");
    assertThat(history.calls).isEmpty();
  }

  /** Records each call as text and answers with what the test set (by default: empty, done). */
  private static final class FakeHistory implements PlayerHistory {
    final List<String> calls = new ArrayList<>();
    CompletionStage<List<HistoryRecord>> progress = CompletableFuture.completedFuture(List.of());
    CompletionStage<HistoryPage> page = CompletableFuture.completedFuture(HistoryPage.getDefaultInstance());

    @Override
    public CompletionStage<List<HistoryRecord>> progress(long uid, List<ItemKey> items) {
      calls.add("progress " + uid + " " + items);
      return progress;
    }

    @Override
    public CompletionStage<HistoryPage> list(long uid, List<Business> businesses, @Nullable Cursor after, int limit) {
      calls.add("list " + uid + " " + businesses + " " + after + " " + limit);
      return page;
    }

    @Override
    public CompletionStage<Void> delete(long uid, List<ItemKey> items) {
      calls.add("delete " + uid + " " + items);
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletionStage<Void> clear(long uid, List<Business> businesses, boolean allBusinesses) {
      calls.add("clear " + uid + " " + businesses + " " + allBusinesses);
      return CompletableFuture.completedFuture(null);
    }
  }

  /** Grants every delete and records what it cost, until the test sets a refusal; queries ask nothing else. */
  private static final class FakeLimits implements UserLimits {
    final List<Integer> spent = new ArrayList<>();
    @Nullable Error refusal;

    @Override
    public @Nullable Error takeDeletes(long uid, int deletes) {
      assertThat(uid).isEqualTo(UID);
      if (refusal != null) {
        return refusal;
      }
      spent.add(deletes);
      return null;
    }

    @Override
    public @Nullable Error takeAuth(long uid) {
      throw new AssertionError("queries do not authenticate");
    }

    @Override
    public AuthRefusalHold authRefusalHold() {
      throw new AssertionError("queries do not authenticate");
    }

    @Override
    public Admission admit(long uid) {
      throw new AssertionError("queries do not admit connections");
    }

    @Override
    public void release(long uid) {
      throw new AssertionError("queries do not release connections");
    }
  }
}
