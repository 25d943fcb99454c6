package io.playline.node.write;

import io.playline.core.write.WriteBatch;
import java.util.List;

/**
 * One batch on its way to Redis, with what its answer needs.
 *
 * @param heartbeats the submissions, in the order of {@code write}'s writes
 * @param checkIndex per submission, its index among {@code write}'s first-today checks, -1 for none
 * @param day the day the batch counts in
 * @param nowMs wall-clock time the batch was built at
 * @param startNanos when the batch left (batcher clock): its round trip starts here
 * @param oldestReadNanos when its oldest submission was read (batcher clock): its ack latency starts here
 * @param write what goes to Redis
 */
record SentBatch(List<PendingWrite> heartbeats, int[] checkIndex, FlagCalendar.Day day, long nowMs, long startNanos,
    long oldestReadNanos, WriteBatch write) {
}
