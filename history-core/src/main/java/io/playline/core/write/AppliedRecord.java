package io.playline.core.write;

import io.playline.proto.v1.HistoryRecord;
import org.jspecify.annotations.Nullable;

/**
 * A record the write-through applied in Redis, with the recovery-log entry that lists it ({@code
 * write_history.lua} appends one per call on a single server; in Redis Cluster the writer appends
 * one per batch after the writes answered). Null only for writers that keep no log (tests).
 */
public record AppliedRecord(HistoryRecord record, @Nullable RecoveryEntry entry) {}
