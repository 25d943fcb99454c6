package io.playline.job.sink;

import io.playline.core.store.RetriableStoreException;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.hadoop.hbase.TableNotFoundException;
import org.apache.hadoop.hbase.client.RetriesExhaustedWithDetailsException;
import org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException;

/**
 * Sorts HBase client failures into retriable and permanent ones. Only a missing table or column
 * family is permanent: retrying cannot create them. Everything else the client throws after its
 * own retries (timeouts, {@code OperationTimeoutExceededException} even though HBase calls it
 * "do not retry", region moves, dead servers, busy regions) is a {@link RetriableStoreException}:
 * for the job a later attempt of the same write may well succeed. Stateless.
 */
public final class HBaseFailures {
  private HBaseFailures() {}

  /** The exception to throw for {@code e}, which happened while doing {@code what}. */
  public static RuntimeException of(String what, IOException e) {
    if (permanent(e)) {
      return new UncheckedIOException("HBase " + what + " failed permanently", e);
    }
    return new RetriableStoreException("HBase " + what + " failed", e);
  }

  /** An interrupted HBase call: the interrupt is kept for the caller; the write may be retried. */
  static RuntimeException interrupted(String what, InterruptedException e) {
    Thread.currentThread().interrupt();
    return new RetriableStoreException("HBase " + what + " interrupted", e);
  }

  static boolean permanent(Throwable error) {
    if (error instanceof RetriesExhaustedWithDetailsException details && details.getNumExceptions() > 0) {
      for (Throwable cause : details.getCauses()) {
        if (!permanent(cause)) {
          return false;
        }
      }
      return true;
    }
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (t instanceof TableNotFoundException || t instanceof NoSuchColumnFamilyException) {
        return true;
      }
    }
    return false;
  }
}
