package io.playline.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import io.playline.proto.v1.AuthOk;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.ClientFrame;
import io.playline.proto.v1.Error;
import io.playline.proto.v1.HeartbeatAck;
import io.playline.proto.v1.HistoryPage;
import io.playline.proto.v1.HistoryRecord;
import io.playline.proto.v1.ProgressResult;
import io.playline.proto.v1.ServerFrame;
import io.playline.testing.Frames;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class ServerFramesTest {
  private final ServerFrames.View view = new ServerFrames.View();

  @Test
  void decodesAnAckWithItsFlagDate() throws Exception {
    ServerFrame ack = ServerFrame.newBuilder().setSeq(77).setHeartbeatAck(
        HeartbeatAck.newBuilder().setFlagDate("2026-11-21").setFirstToday(true).addFirstView(true)).build();
    ServerFrames.decode(ByteBuffer.wrap(ack.toByteArray()), view, true);
    assertThat(view.seq).isEqualTo(77);
    assertThat(view.body).isEqualTo(ServerFrames.HEARTBEAT_ACK);
    assertThat(view.flagDate).isEqualTo("2026-11-21");
  }

  @Test
  void decodesErrorCodesAndAuthOkFlags() throws Exception {
    ServerFrame error = ServerFrame.newBuilder().setSeq(5)
        .setError(Error.newBuilder().setCode(Error.Code.RATE_LIMITED).setMessage("slow down")).build();
    ServerFrames.decode(ByteBuffer.wrap(error.toByteArray()), view, false);
    assertThat(view.body).isEqualTo(ServerFrames.ERROR);
    assertThat(view.errorCode).isEqualTo(Error.Code.RATE_LIMITED.getNumber());
    ServerFrame ok = ServerFrame.newBuilder().setSeq(1)
        .setAuthOk(AuthOk.newBuilder().setUid(9).setSessionId("s").setFlagDate("2026-11-21")).build();
    ServerFrames.decode(ByteBuffer.wrap(ok.toByteArray()), view, true);
    assertThat(view.body).isEqualTo(ServerFrames.AUTH_OK);
    assertThat(view.flagDate).isEqualTo("2026-11-21");
  }

  @Test
  void takesAnEchoedHeartbeatAsAnAckWithoutAFlag() throws Exception {
    ClientFrame heartbeat = Frames.heartbeat(12, "2026-11-21", Frames.event(3, 1000, 0));
    ServerFrames.decode(ByteBuffer.wrap(heartbeat.toByteArray()), view, true);
    assertThat(view.seq).isEqualTo(12);
    assertThat(view.body).isEqualTo(ServerFrames.HEARTBEAT_ACK);
    assertThat(view.flagDate).isNull();
  }

  @Test
  void countsTheRecordsOfAPageOrAProgressResultAndNothingElse() throws Exception {
    HistoryRecord r = HistoryRecord.newBuilder().setUid(9).setBusiness(Business.VIDEO).setOid(3).build();
    ServerFrame page = ServerFrame.newBuilder().setSeq(4).setHistoryPage(HistoryPage.newBuilder()
        .addRecords(r).addRecords(r).addRecords(r).setHasMore(true)).build();
    ServerFrames.decode(ByteBuffer.wrap(page.toByteArray()), view, false);
    assertThat(view.body).isEqualTo(ServerFrames.HISTORY_PAGE);
    assertThat(view.records).isEqualTo(3);
    ServerFrame progress = ServerFrame.newBuilder().setSeq(5)
        .setProgress(ProgressResult.newBuilder().addRecords(r).addRecords(r)).build();
    ServerFrames.decode(ByteBuffer.wrap(progress.toByteArray()), view, false);
    assertThat(view.body).isEqualTo(ServerFrames.PROGRESS);
    assertThat(view.records).isEqualTo(2);
    ServerFrame empty = ServerFrame.newBuilder().setSeq(6).setHistoryPage(HistoryPage.getDefaultInstance()).build();
    ServerFrames.decode(ByteBuffer.wrap(empty.toByteArray()), view, false);
    assertThat(view.records).isZero();
    ServerFrames.fromMessage(page, view);
    assertThat(view.records).isEqualTo(3);
  }
}
