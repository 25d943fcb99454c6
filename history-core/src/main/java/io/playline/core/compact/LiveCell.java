package io.playline.core.compact;

import com.google.protobuf.InvalidProtocolBufferException;
import io.playline.core.store.HistoryRowKeys;
import io.playline.proto.v1.HistoryRecord;
import io.playline.proto.v1.ItemKey;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.jspecify.annotations.Nullable;

/** A live cell of a user's history row: its qualifier, timestamp (the view time) and record. */
record LiveCell(byte[] qualifier, long timeMs, HistoryRecord record) {
  /** Null for a cell that is not a readable record of a known item: such a cell is left alone. */
  static @Nullable LiveCell of(Cell cell) {
    byte[] qualifier = CellUtil.cloneQualifier(cell);
    try {
      ItemKey item = HistoryRowKeys.item(qualifier);
      HistoryRecord r = HistoryRecord.parseFrom(CellUtil.cloneValue(cell));
      if (item.getBusinessValue() <= 0 || item.getOid() <= 0) {
        return null;
      }
      // The cell's key and time are what readers use: keep the record consistent with them.
      return new LiveCell(qualifier, cell.getTimestamp(), r.toBuilder().clearUid()
          .setBusinessValue(item.getBusinessValue()).setOid(item.getOid()).setViewTimeMs(cell.getTimestamp())
          .build());
    } catch (IllegalArgumentException | InvalidProtocolBufferException e) {
      return null;
    }
  }
}
