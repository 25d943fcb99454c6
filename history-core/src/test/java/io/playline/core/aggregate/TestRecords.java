package io.playline.core.aggregate;

import io.playline.proto.v1.Business;
import io.playline.proto.v1.HistoryChange;
import io.playline.proto.v1.HistoryChangeBatch;
import io.playline.proto.v1.HistoryRecord;
import io.playline.proto.v1.ItemKey;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/** Builders and parsers shared by the write-back tests. */
final class TestRecords {
  private TestRecords() {}

  static HistoryRecord video(long uid, long oid, long progressMs, long viewTimeMs) {
    return record(uid, Business.VIDEO, oid, progressMs, viewTimeMs);
  }

  static HistoryRecord record(long uid, Business business, long oid, long progressMs, long viewTimeMs) {
    return HistoryRecord.newBuilder().setUid(uid).setBusiness(business).setOid(oid).setProgressMs(progressMs)
        .setDurationMs(600_000).setViewTimeMs(viewTimeMs).setDeviceId("phone-1").setPlatform("android").build();
  }

  static ItemKey item(Business business, long oid) {
    return ItemKey.newBuilder().setBusiness(business).setOid(oid).build();
  }

  static HistoryChangeBatch batch(ConsumerRecord<byte[], byte[]> r) {
    try {
      return HistoryChangeBatch.parseFrom(r.value());
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      throw new AssertionError("not a HistoryChangeBatch at offset " + r.offset(), e);
    }
  }

  static List<HistoryChange> changes(List<ConsumerRecord<byte[], byte[]>> records) {
    return records.stream().flatMap(r -> batch(r).getChangesList().stream()).toList();
  }

  static List<HistoryRecord> upserts(List<ConsumerRecord<byte[], byte[]>> records) {
    return changes(records).stream().flatMap(c -> c.getUpsertsList().stream()).toList();
  }

  static int upsertCount(List<ConsumerRecord<byte[], byte[]>> records) {
    return upserts(records).size();
  }
}
