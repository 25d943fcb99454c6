package io.playline.core.aggregate;

import com.google.protobuf.CodedOutputStream;
import io.playline.proto.v1.HistoryChange;
import io.playline.proto.v1.HistoryChangeBatch;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Turns a snapshot of pending changes into Kafka records: users grouped by {@link UserPartitions},
 * one {@link HistoryChangeBatch} per partition, split only where the serialized record would exceed
 * the size limit. A user appears at most once per record; a user too large for one record is split
 * across consecutive records of its partition. Stateless.
 */
final class WriteBackRecords {
  /** Tag and longest length prefix of one embedded HistoryChange. */
  private static final int CHANGE_OVERHEAD = 1 + 5;

  private WriteBackRecords() {}

  static List<PartitionRecord> assemble(Collection<UserChanges> users, int partitionCount, long flushedAtMs,
      String nodeId, int maxRecordBytes) {
    Map<Integer, List<UserChanges>> byPartition = new TreeMap<>();
    for (UserChanges u : users) {
      byPartition.computeIfAbsent(UserPartitions.of(u.uid(), partitionCount), p -> new ArrayList<>()).add(u);
    }
    int base = CodedOutputStream.computeInt64Size(1, flushedAtMs) + CodedOutputStream.computeStringSize(3, nodeId);
    int maxChangeBytes = Math.max(64, maxRecordBytes - base - CHANGE_OVERHEAD);
    List<PartitionRecord> records = new ArrayList<>(byPartition.size());
    for (Map.Entry<Integer, List<UserChanges>> e : byPartition.entrySet()) {
      int partition = e.getKey();
      HistoryChangeBatch.Builder batch = newBatch(flushedAtMs, nodeId);
      int size = base;
      for (UserChanges u : e.getValue()) {
        List<HistoryChange> pieces = u.pieces(maxChangeBytes);
        for (int i = 0; i < pieces.size(); i++) {
          HistoryChange piece = pieces.get(i);
          int pieceSize = CodedOutputStream.computeMessageSize(2, piece);
          // A piece after the first one of a user always starts a record: at most one entry per user.
          if (batch.getChangesCount() > 0 && (i > 0 || size + pieceSize > maxRecordBytes)) {
            records.add(new PartitionRecord(partition, batch.build()));
            batch = newBatch(flushedAtMs, nodeId);
            size = base;
          }
          batch.addChanges(piece);
          size += pieceSize;
        }
      }
      if (batch.getChangesCount() > 0) {
        records.add(new PartitionRecord(partition, batch.build()));
      }
    }
    return records;
  }

  private static HistoryChangeBatch.Builder newBatch(long flushedAtMs, String nodeId) {
    return HistoryChangeBatch.newBuilder().setFlushedAtMs(flushedAtMs).setNodeId(nodeId);
  }
}
