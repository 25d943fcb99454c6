package io.playline.gateway.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.playline.core.write.WriteOutcome;
import io.playline.proto.v1.ServerFrame;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/** The ack's hand-written bytes against protobuf's serialization of the same ack. */
class AckEncodingTest {
  private static final long[] SEQS = {0, 1, 127, 128, 16_383, 16_384, Integer.MAX_VALUE, Long.MAX_VALUE, -1};
  private static final String[] DATES = {"", "2026-12-07", "1999-01-01", "日付", "é".repeat(70), "x".repeat(300),
      "\uD800é", "a\uDC00", "\uD83D\uDE00"};
  private static final int[] VIEWS = {-1, 0, 1, 3, 100, 127, 128, 300};

  @Test
  void everyShapeOfAckIsWhatProtobufWrites() {
    Random random = new Random(48);
    int checked = 0;
    for (long seq : SEQS) {
      for (String date : DATES) {
        for (boolean firstToday : new boolean[] {false, true}) {
          for (int views : VIEWS) {
            check(seq, date, firstToday, outcome(random, views));
            checked++;
          }
        }
      }
    }
    assertThat(checked).isEqualTo(SEQS.length * DATES.length * 2 * VIEWS.length);
  }

  @Test
  void randomAcksAreWhatProtobufWrites() {
    Random random = new Random(7);
    for (int i = 0; i < 5_000; i++) {
      long seq = random.nextInt(4) == 0 ? random.nextLong() : random.nextInt(1 << random.nextInt(31));
      String date = random.nextBoolean() ? "" : "2026-12-" + (10 + random.nextInt(20));
      check(seq, date, random.nextBoolean(), outcome(random, random.nextInt(140) - 1));
    }
  }

  @Test
  void aPausedUsersAckCarriesItsCodesAsTheMessageDoes() {
    WriteOutcome paused = new WriteOutcome(true, new byte[] {WriteOutcome.LOST, WriteOutcome.LOST});
    check(9, "2026-12-07", false, paused);
    assertThat(AckEncoding.frame(9, "2026-12-07", false, paused).getHeartbeatAck().getFirstViewList())
        .containsExactly(false, false);
  }

  /** A written heartbeat's outcome of {@code views} codes, or none (a keep-alive) for -1. */
  private static @Nullable WriteOutcome outcome(Random random, int views) {
    if (views < 0) {
      return null;
    }
    byte[] codes = new byte[views];
    for (int i = 0; i < views; i++) {
      codes[i] = (byte) random.nextInt(3);
    }
    return new WriteOutcome(random.nextInt(10) == 0, codes);
  }

  private static void check(long seq, String date, boolean firstToday, @Nullable WriteOutcome outcome) {
    ServerFrame message = AckEncoding.frame(seq, date, firstToday, outcome);
    int size = AckEncoding.size(seq, date, firstToday, outcome);
    ByteBuf out = Unpooled.buffer();
    try {
      AckEncoding.write(out, seq, date, firstToday, outcome);
      String ack = "seq " + seq + ", date '" + date + "', first today " + firstToday + ", views "
          + (outcome == null ? "none" : views(outcome));
      assertThat(ByteBufUtil.getBytes(out)).as(ack).isEqualTo(message.toByteArray());
      assertThat(size).as(ack).isEqualTo(message.getSerializedSize());
    } finally {
      out.release();
    }
  }

  private static List<Boolean> views(WriteOutcome outcome) {
    List<Boolean> views = new ArrayList<>();
    for (int i = 0; i < outcome.codes().length; i++) {
      views.add(outcome.firstView(i));
    }
    return views;
  }
}
