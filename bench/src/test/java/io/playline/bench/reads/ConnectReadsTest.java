package io.playline.bench.reads;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.playline.api.config.ApiHttpConfig;
import io.playline.api.connect.ConnectServer;
import io.playline.core.config.ConfigSource;
import io.playline.node.loops.EventLoops;
import io.playline.proto.v1.HistoryGrpc;
import io.playline.proto.v1.HistoryRecord;
import io.playline.proto.v1.ListHistoryRequest;
import io.playline.proto.v1.ListHistoryResponse;
import io.playline.time.Time;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code bench reads --kind list-connect}'s client against a Connect port serving a History of this
 * test's own: it asks for the page it means, reads it back from JSON over a kept-alive connection,
 * and fails on a short page, another user's records or an error instead of counting it.
 */
class ConnectReadsTest {
  private EventLoops loops;
  private ConnectServer server;
  private final List<ConnectReads> opened = new ArrayList<>();

  /** A page of {@code limit} records of the user; uid 13 has 3 records only; uid 14 gets uid 15's; uid 0 is refused. */
  private static final class Pages extends HistoryGrpc.HistoryImplBase {
    @Override
    public void listHistory(ListHistoryRequest request, StreamObserver<ListHistoryResponse> response) {
      if (request.getUid() == 0) {
        response.onError(Status.INVALID_ARGUMENT.withDescription("uid: 0").asRuntimeException());
        return;
      }
      ListHistoryResponse.Builder page = ListHistoryResponse.newBuilder();
      for (int i = 0; i < (request.getUid() == 13 ? 3 : request.getLimit()); i++) {
        page.addRecords(HistoryRecord.newBuilder().setUid(request.getUid() == 14 ? 15 : request.getUid())
            .setOid(9_007_199_254_740_993L - i));
      }
      response.onNext(page.build());
      response.onCompleted();
    }
  }

  @BeforeEach
  void start() throws Exception {
    loops = EventLoops.create(1);
    server = ConnectServer.start(loops, "127.0.0.1", ApiHttpConfig.from(ConfigSource.empty(), 0), 4096, null,
        new SimpleMeterRegistry(), Time.SYSTEM, new Pages().bindService());
  }

  @AfterEach
  void stop() {
    opened.forEach(ConnectReads::close);
    server.close();
    loops.close();
  }

  private ConnectReads reads(int expected) {
    ConnectReads reads = new ConnectReads("http://127.0.0.1:" + server.address().getPort(), "Bearer t", expected);
    opened.add(reads);
    return reads;
  }

  @Test
  void readsTheFirstPageBackFromJsonOverOneKeptAliveConnection() throws Exception {
    ConnectReads reads = reads(20);
    for (int i = 0; i < 3; i++) {
      assertThat(reads.page(42, 20).toCompletableFuture().get(10, TimeUnit.SECONDS)).isEqualTo(20);
    }
    assertThat(reads.connections()).as("one request at a time: the connection is kept and reused").isEqualTo(1);
  }

  @Test
  void aShortPageAnotherUsersPageOrAnErrorFailsTheRead() {
    assertThatThrownBy(() -> reads(20).page(13, 20).toCompletableFuture().get(10, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class).hasMessageContaining("3 of 20 records");
    assertThatThrownBy(() -> reads(20).page(14, 20).toCompletableFuture().get(10, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class).hasMessageContaining("a record of user 15 in the page of user 14");
    assertThatThrownBy(() -> reads(20).page(0, 20).toCompletableFuture().get(10, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class).hasMessageContaining("400").hasMessageContaining("invalid_argument");
  }
}
