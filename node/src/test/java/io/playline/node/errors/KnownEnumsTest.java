package io.playline.node.errors;

import static org.assertj.core.api.Assertions.assertThat;

import io.playline.proto.v1.Business;
import io.playline.proto.v1.ClientFrame;
import io.playline.proto.v1.Cursor;
import io.playline.proto.v1.Heartbeat;
import io.playline.proto.v1.ItemKey;
import io.playline.proto.v1.ListHistoryRequest;
import io.playline.proto.v1.PlayEvent;
import io.playline.proto.v1.ReportRequest;
import org.junit.jupiter.api.Test;

/** Unknown enum numbers are found in singular, repeated and nested fields, named by their path. */
class KnownEnumsTest {
  private static final String EXPECTED =
      " (expected: a Business the API defines: VIDEO, ARTICLE, COMIC, LIVE, AUDIO, EPISODE)";

  @Test
  void anUnknownNumberIsNamedByItsPathWhereverItIs() {
    assertThat(KnownEnums.problem(ListHistoryRequest.newBuilder().addBusinesses(Business.VIDEO).addBusinessesValue(7)
        .build())).isEqualTo("businesses[1]: 7" + EXPECTED);
    assertThat(KnownEnums.problem(ListHistoryRequest.newBuilder().setAfter(Cursor.newBuilder()
        .setItem(ItemKey.newBuilder().setBusinessValue(-3).setOid(1))).build())).isEqualTo("after.item.business: -3"
        + EXPECTED);
    assertThat(KnownEnums.problem(ReportRequest.newBuilder().addEvents(PlayEvent.newBuilder()
        .setBusiness(Business.ARTICLE)).addEvents(PlayEvent.newBuilder().setBusinessValue(100)).build()))
        .isEqualTo("events[1].business: 100" + EXPECTED);
    assertThat(KnownEnums.problem(ClientFrame.newBuilder().setHeartbeat(Heartbeat.newBuilder()
        .addEvents(PlayEvent.newBuilder().setBusinessValue(8))).build()))
        .isEqualTo("heartbeat.events[0].business: 8" + EXPECTED);
  }

  @Test
  void definedNumbersAndUnsetFieldsPass() {
    assertThat(KnownEnums.problem(ListHistoryRequest.newBuilder().setUid(1).addBusinesses(Business.EPISODE)
        .setAfter(Cursor.newBuilder().setItem(ItemKey.newBuilder().setBusiness(Business.LIVE))).build())).isNull();
    assertThat(KnownEnums.problem(ListHistoryRequest.getDefaultInstance())).as("0 is defined: unset").isNull();
  }
}
