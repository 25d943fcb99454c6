package io.playline.api;

import com.google.protobuf.MessageOrBuilder;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.playline.core.query.HistoryService;
import io.playline.core.write.EventRules;
import io.playline.core.write.WriteOutcome;
import io.playline.node.WriteLimitsConfig;
import io.playline.node.errors.StatusMapper;
import io.playline.node.write.EventRecords;
import io.playline.node.write.WriteBatcher;
import io.playline.node.write.PendingWrite;
import io.playline.node.errors.ClientLabels;
import io.playline.node.errors.KnownEnums;
import io.playline.node.errors.ServiceErrors;
import io.playline.proto.v1.BatchGetProgressRequest;
import io.playline.proto.v1.BatchGetProgressResponse;
import io.playline.proto.v1.ClearHistoryRequest;
import io.playline.proto.v1.ClearHistoryResponse;
import io.playline.proto.v1.DeleteHistoryRequest;
import io.playline.proto.v1.DeleteHistoryResponse;
import io.playline.proto.v1.GetItemStatsRequest;
import io.playline.proto.v1.GetItemStatsResponse;
import io.playline.proto.v1.GetPausedRequest;
import io.playline.proto.v1.GetPausedResponse;
import io.playline.proto.v1.GetProgressRequest;
import io.playline.proto.v1.GetProgressResponse;
import io.playline.proto.v1.HistoryGrpc;
import io.playline.proto.v1.HistoryRecord;
import io.playline.proto.v1.ListHistoryRequest;
import io.playline.proto.v1.ListHistoryResponse;
import io.playline.proto.v1.ReportRequest;
import io.playline.proto.v1.ReportResponse;
import io.playline.proto.v1.SetPausedRequest;
import io.playline.proto.v1.SetPausedResponse;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.CompletionStage;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.ThreadExecutorMap;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * {@code playline.v1.History} on the internal API port: backends report through the same batched
 * write path as players (LWW, first-today, first-view), and query and control any user's history
 * through {@link HistoryService}. Never blocks the calling (transport) thread; failures map to
 * stable statuses with client-safe descriptions. Thread-safe.
 */
public final class HistoryGrpcService extends HistoryGrpc.HistoryImplBase {
  private final HistoryService history;
  private final WriteBatcher batcher;
  private final EventRules rules;
  private final WriteLimitsConfig limits;
  private final Clock clock;

  /** The service with the node's {@code limits} ({@code heartbeat.max.events}, {@code device.id.max.bytes}, ...). */
  public HistoryGrpcService(HistoryService history, WriteBatcher batcher, EventRules rules, WriteLimitsConfig limits,
      Clock clock) {
    this.history = history;
    this.batcher = batcher;
    this.rules = rules;
    this.limits = limits;
    this.clock = clock;
  }

  @Override
  public void report(ReportRequest request, StreamObserver<ReportResponse> response) {
    String unknown = KnownEnums.problem(request);
    if (unknown != null) {
      response.onError(invalid(unknown));
      return;
    }
    if (request.getUid() <= 0) {
      response.onError(invalid("uid: " + request.getUid() + " (expected: > 0)"));
      return;
    }
    String problem = ClientLabels.problem(request.getDeviceId(), request.getPlatform(), limits.maxDeviceIdBytes(),
        limits.maxPlatformBytes());
    if (problem == null) {
      problem = EventRecords.problem(request.getEventsList(), limits.maxEvents());
    }
    if (problem != null) {
      response.onError(invalid(problem));
      return;
    }
    if (request.getEventsCount() == 0) {
      response.onNext(ReportResponse.getDefaultInstance());
      response.onCompleted();
      return;
    }
    PendingWrite pending = new PendingWrite(request.getUid(),
        EventRecords.build(request.getUid(), request.getDeviceId(), request.getPlatform(), request.getEventsList(),
            clock.millis(), rules),
        true, "", request.getDeviceId(), request.getPlatform(), (outcome, firstToday, day, error) -> {
          if (error != null || outcome == null) {
            response.onError(Status.UNAVAILABLE.withDescription("could not record the report; retry").asRuntimeException());
            return;
          }
          response.onNext(reportResponse(outcome, firstToday, day.iso()));
          response.onCompleted();
        }, batcher.nanoTime());
    if (!batcher.submit(pending)) {
      response.onError(Status.RESOURCE_EXHAUSTED.withDescription("server busy; retry later").asRuntimeException());
    }
  }

  private static ReportResponse reportResponse(WriteOutcome outcome, boolean firstToday, String day) {
    ReportResponse.Builder r = ReportResponse.newBuilder().setFlagDate(day).setFirstToday(firstToday);
    for (int i = 0; i < outcome.codes().length; i++) {
      r.addFirstView(outcome.firstView(i));
    }
    return r.build();
  }

  @Override
  public void getProgress(GetProgressRequest request, StreamObserver<GetProgressResponse> response) {
    answer(request, response, "GetProgress", () -> history.progress(request.getUid(), request.getItemsList()),
        records -> GetProgressResponse.newBuilder().addAllRecords(records).build());
  }

  @Override
  public void batchGetProgress(BatchGetProgressRequest request, StreamObserver<BatchGetProgressResponse> response) {
    answer(request, response, "BatchGetProgress", () -> history.progress(request.getRequestsList()), answers -> {
      BatchGetProgressResponse.Builder r = BatchGetProgressResponse.newBuilder();
      for (List<HistoryRecord> records : answers) {
        r.addResponses(GetProgressResponse.newBuilder().addAllRecords(records));
      }
      return r.build();
    });
  }

  @Override
  public void listHistory(ListHistoryRequest request, StreamObserver<ListHistoryResponse> response) {
    answer(request, response, "ListHistory",
        () -> history.list(request.getUid(), request.getBusinessesList(), request.hasAfter() ? request.getAfter() : null,
            request.getLimit()),
        page -> {
          ListHistoryResponse.Builder r = ListHistoryResponse.newBuilder()
              .addAllRecords(page.getRecordsList()).setHasMore(page.getHasMore());
          if (page.hasNext()) {
            r.setNext(page.getNext());
          }
          return r.build();
        });
  }

  @Override
  public void deleteHistory(DeleteHistoryRequest request, StreamObserver<DeleteHistoryResponse> response) {
    answer(request, response, "DeleteHistory", () -> history.delete(request.getUid(), request.getItemsList()),
        v -> DeleteHistoryResponse.getDefaultInstance());
  }

  @Override
  public void clearHistory(ClearHistoryRequest request, StreamObserver<ClearHistoryResponse> response) {
    answer(request, response, "ClearHistory", () -> history.clear(request.getUid(), request.getBusinessesList(),
        request.getAllBusinesses()),
        v -> ClearHistoryResponse.getDefaultInstance());
  }

  @Override
  public void setPaused(SetPausedRequest request, StreamObserver<SetPausedResponse> response) {
    answer(request, response, "SetPaused", () -> history.setPaused(request.getUid(), request.getPaused()),
        paused -> SetPausedResponse.newBuilder().setPaused(paused).build());
  }

  @Override
  public void getPaused(GetPausedRequest request, StreamObserver<GetPausedResponse> response) {
    answer(request, response, "GetPaused", () -> history.paused(request.getUid()),
        paused -> GetPausedResponse.newBuilder().setPaused(paused).build());
  }

  @Override
  public void getItemStats(GetItemStatsRequest request, StreamObserver<GetItemStatsResponse> response) {
    answer(request, response, "GetItemStats", () -> history.itemStats(request.getItemsList()),
        stats -> GetItemStatsResponse.newBuilder().addAllStats(stats).build());
  }

  /**
   * Answers {@code request} with what {@code call} completes with, converted by {@code toResponse},
   * or with the status its failure maps to. An enum number the API does not define anywhere in the
   * request is refused first, naming the field and the number, before the service can read it as
   * UNRECOGNIZED or as nothing.
   */
  private static <T, R> void answer(MessageOrBuilder request, StreamObserver<R> response, String operation,
      Supplier<CompletionStage<T>> call, Function<T, R> toResponse) {
    String unknown = KnownEnums.problem(request);
    if (unknown != null) {
      response.onError(invalid(unknown));
      return;
    }
    // The answer is built and encoded on the loop the call arrived on (the API's, with the server's
    // direct executor), not on the thread that completed the query (the node's Redis client's, in
    // the api role; beside players each API loop queries over a client of its own);
    // a query completed on that loop already is answered there at once, not queued behind itself.
    EventExecutor loop = ThreadExecutorMap.currentExecutor();
    Executor answering = loop == null ? Runnable::run : task -> {
      if (loop.inEventLoop()) {
        task.run();
      } else {
        loop.execute(task);
      }
    };
    ServiceErrors.call(call).whenCompleteAsync((value, error) -> {
      if (error != null) {
        response.onError(StatusMapper.toStatus(ServiceErrors.toError(error, operation)).asRuntimeException());
      } else {
        response.onNext(toResponse.apply(value));
        response.onCompleted();
      }
    }, answering);
  }

  private static io.grpc.StatusRuntimeException invalid(String message) {
    return Status.INVALID_ARGUMENT.withDescription(message).asRuntimeException();
  }
}
