package io.playline.gateway.session;

import com.google.protobuf.MessageOrBuilder;
import io.playline.gateway.stream.StreamTransport;
import io.playline.node.errors.Errors;
import io.playline.node.errors.KnownEnums;
import io.playline.node.errors.ServiceErrors;
import io.playline.proto.v1.ClearHistory;
import io.playline.proto.v1.DeleteItems;
import io.playline.proto.v1.Done;
import io.playline.proto.v1.Error;
import io.playline.proto.v1.HistoryQuery;
import io.playline.proto.v1.ProgressQuery;
import io.playline.proto.v1.ProgressResult;
import io.playline.proto.v1.ServerFrame;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The queries a player may send over its stream — progress, history page, delete, clear — always
 * for the connection's authenticated user (the frames carry no uid). Answers carry the request's
 * seq; failures answer an Error and keep the connection open. Deletes and clears spend the
 * user's deletes budget first ({@link UserLimits#takeDeletes}: an item each, a clear one): over it
 * they are answered RATE_LIMITED and never reach Redis. Confined to the connection's executor: results hop
 * back onto it.
 */
final class StreamQueries {
  private final StreamTransport transport;
  private final PlayerHistory history;
  private final long uid;
  private final UserLimits limits;

  StreamQueries(StreamTransport transport, PlayerHistory history, long uid, UserLimits limits) {
    this.transport = transport;
    this.history = history;
    this.uid = uid;
    this.limits = limits;
  }

  void progress(long seq, ProgressQuery q) {
    answer(seq, q, "progress query", () -> history.progress(uid, q.getItemsList()),
        records -> ServerFrame.newBuilder().setProgress(ProgressResult.newBuilder().addAllRecords(records)));
  }

  void history(long seq, HistoryQuery q) {
    answer(seq, q, "history query", () -> history.list(uid, q.getBusinessesList(), q.hasAfter() ? q.getAfter() : null, q.getLimit()),
        page -> ServerFrame.newBuilder().setHistoryPage(page));
  }

  void delete(long seq, DeleteItems d) {
    if (overBudget(seq, Math.max(1, d.getItemsCount()))) {
      return;
    }
    answer(seq, d, "delete", () -> history.delete(uid, d.getItemsList()), v -> ServerFrame.newBuilder().setDone(Done.getDefaultInstance()));
  }

  void clear(long seq, ClearHistory c) {
    if (overBudget(seq, 1)) {
      return;
    }
    answer(seq, c, "clear", () -> history.clear(uid, c.getBusinessesList(), c.getAllBusinesses()), v -> ServerFrame.newBuilder().setDone(Done.getDefaultInstance()));
  }

  /** Spends {@code deletes} of the user's budget; when over it, answers RATE_LIMITED and returns true. */
  private boolean overBudget(long seq, int deletes) {
    Error refused = limits.takeDeletes(uid, deletes);
    if (refused == null) {
      return false;
    }
    transport.send(Errors.frame(seq, refused));
    return true;
  }

  /**
   * Answers the query with what {@code call} completes with, or an Error. An enum number the API
   * does not define anywhere in the query is refused first, naming the field and the number.
   */
  private <T> void answer(long seq, MessageOrBuilder query, String operation, Supplier<CompletionStage<T>> call,
      Function<T, ServerFrame.Builder> frame) {
    String unknown = KnownEnums.problem(query);
    if (unknown != null) {
      transport.send(Errors.frame(seq, Errors.of(Error.Code.INVALID_ARGUMENT, unknown)));
      return;
    }
    ServiceErrors.call(call).whenComplete((value, error) -> transport.executor().execute(() -> {
      if (error != null) {
        transport.send(Errors.frame(seq, ServiceErrors.toError(error, operation)));
      } else {
        transport.send(frame.apply(value).setSeq(seq).build());
      }
    }));
  }
}
