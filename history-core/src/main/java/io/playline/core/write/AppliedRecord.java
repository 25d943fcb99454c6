package io.playline.core.write;

import io.playline.proto.v1.HistoryRecord;

/**
 * A record the write-through applied in Redis, with the stamp its recovery mark got ({@code
 * write_history.lua} on a single server, {@code mark_recovery.lua} in Redis Cluster: microseconds by
 * the shard's Redis clock, strictly increasing per shard). The job may clear the item's mark up to
 * that stamp once the item is persisted.
 */
public record AppliedRecord(HistoryRecord record, long markStampUs) {}
