package io.playline.core.aggregate;

import io.playline.proto.v1.HistoryChangeBatch;

/**
 * One write-back Kafka record: the batch for one partition (or one part of it, when the
 * partition's changes exceed writeback.max.record.bytes). Immutable.
 *
 * @param partition the partition it goes to; its decimal text is the record key
 * @param batch the record value
 */
record PartitionRecord(int partition, HistoryChangeBatch batch) {}
