package io.playline.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.luben.zstd.Zstd;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.HistoryRecord;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Put;
import org.junit.jupiter.api.Test;

class HistoryChunksTest {

  @Test
  void aChunkRoundTripsWithoutUidsAndCompresses() {
    List<HistoryRecord> records = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      records.add(HistoryRecord.newBuilder().setUid(42).setBusiness(Business.VIDEO).setOid(1000 + i)
          .setProgressMs(i * 1000L).setDurationMs(1_200_000).setViewTimeMs(1_700_000_000_000L - i * 60_000L)
          .setDeviceId("tablet-1").setPlatform("android").build());
    }
    byte[] cell = HistoryChunks.encode(records);
    List<HistoryRecord> decoded = HistoryChunks.decode(cell);
    assertThat(decoded).hasSize(1000);
    for (int i = 0; i < records.size(); i++) {
      assertThat(decoded.get(i)).isEqualTo(records.get(i).toBuilder().clearUid().build());
    }
    assertThat(cell.length).isLessThan(HistoryChunks.raw(records).getSerializedSize() / 3);
  }

  @Test
  void aChunkIsReadRecordByRecordWithItsKeyFirstAndTheSameRecordsWhole() {
    List<HistoryRecord> records = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      records.add(HistoryRecord.newBuilder().setUid(42).setBusiness(i % 2 == 0 ? Business.COMIC : Business.LIVE)
          .setOid(7000 + i).setSubId(i % 5).setProgressMs(i).setViewTimeMs(1_700_000_000_000L - i * 1000L)
          .setDeviceId(i % 3 == 0 ? "" : "tv").build());
    }
    HistoryChunks.Records read = HistoryChunks.records(HistoryChunks.encode(records));
    int n = 0;
    while (read.next()) {
      HistoryRecord expected = records.get(n).toBuilder().clearUid().build();
      assertThat(read.business()).isEqualTo(expected.getBusinessValue());
      assertThat(read.oid()).isEqualTo(expected.getOid());
      assertThat(read.viewTimeMs()).isEqualTo(expected.getViewTimeMs());
      if (n % 7 == 0) {
        assertThat(read.record()).isEqualTo(expected);
        assertThat(read.bytes()).isEqualTo(expected.toByteArray());
      }
      n++;
    }
    assertThat(n).isEqualTo(300);
    assertThat(HistoryChunks.records(HistoryChunks.encode(List.of())).next()).isFalse();
    // A record without those fields reads as zeros (unknown to the read path), not as the previous one's.
    HistoryChunks.Records bare = HistoryChunks.records(HistoryChunks.encode(List.of(records.get(1),
        HistoryRecord.newBuilder().setProgressMs(5).build())));
    assertThat(bare.next()).isTrue();
    assertThat(bare.next()).isTrue();
    assertThat(List.of(bare.business(), bare.oid(), bare.viewTimeMs())).containsExactly(0, 0L, 0L);
    assertThat(bare.next()).isFalse();
  }

  @Test
  void aKnownFieldWithAnotherWireTypeIsSkippedAsUnknown() throws Exception {
    // A record whose field 7 (view_time_ms) arrives length-delimited, then oid = 5 as a varint.
    java.io.ByteArrayOutputStream record = new java.io.ByteArrayOutputStream();
    com.google.protobuf.CodedOutputStream out = com.google.protobuf.CodedOutputStream.newInstance(record);
    out.writeByteArray(HistoryRecord.VIEW_TIME_MS_FIELD_NUMBER, new byte[] {9, 9, 9});
    out.writeInt64(HistoryRecord.OID_FIELD_NUMBER, 5);
    out.flush();
    java.io.ByteArrayOutputStream raw = new java.io.ByteArrayOutputStream();
    com.google.protobuf.CodedOutputStream c = com.google.protobuf.CodedOutputStream.newInstance(raw);
    c.writeByteArray(io.playline.proto.v1.HistoryChunk.RECORDS_FIELD_NUMBER, record.toByteArray());
    c.flush();

    HistoryChunks.Records read = HistoryChunks.records(Zstd.compress(raw.toByteArray()));
    assertThat(read.next()).isTrue();
    assertThat(read.oid()).isEqualTo(5);
    assertThat(read.viewTimeMs()).isZero();
    assertThat(read.record().getOid()).as("protobuf's own parser agrees").isEqualTo(5);
    assertThat(read.next()).isFalse();
  }

  @Test
  void bytesThatAreNotAChunkAreRefusedNotMisread() {
    assertThatThrownBy(() -> HistoryChunks.decode("not zstd".getBytes(StandardCharsets.US_ASCII)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a history chunk");
    assertThatThrownBy(() -> HistoryChunks.records(Zstd.compress(new byte[] {(byte) 0xff, 1, 2})).next())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a history chunk");
    assertThatThrownBy(() -> HistoryChunks.decode(Zstd.compress(new byte[] {(byte) 0xff, 1, 2})))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a history chunk");
    assertThatThrownBy(() -> HistoryChunks.decode(new byte[0])).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void layoutNamesTheChunksTableRowsAndTombstones() {
    assertThat(HistoryChunks.table(TableName.valueOf("playline:history")).getNameAsString())
        .isEqualTo("playline:history_chunks");
    String row = new String(HistoryRowKeys.row(12345), StandardCharsets.US_ASCII);
    assertThat(new String(HistoryChunks.chunkRow(12345, 0xabcL, 7), StandardCharsets.US_ASCII))
        .isEqualTo(row + "/0000000000000abc/7");
    Put put = HistoryChunks.tombstones(12345, new byte[] {'h'}, Map.of("*", 10L, "1:42", 20L));
    assertThat(put.get(new byte[] {'h'}, HistoryChunks.tombstoneQualifier("1:42")).get(0).getTimestamp()).isEqualTo(20);
  }
}
