package io.playline.core.query;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisException;
import io.playline.core.store.RetriableStoreException;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.apache.hadoop.hbase.TableNotFoundException;
import org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException;

/**
 * Sorts the failures of the query path into what callers act on: invalid requests stay {@link
 * InvalidRequestException}; a Redis or HBase failure that may pass (timeout, lost connection, a
 * server loading, failing over or moving regions) becomes {@link RetriableStoreException}; a
 * missing HBase table or family, a script error or a bug stays what it is. Stateless.
 */
final class StoreFailures {
  private static final List<String> TRANSIENT_REDIS_ERRORS =
      List.of("LOADING", "BUSY", "TRYAGAIN", "CLUSTERDOWN", "MASTERDOWN", "READONLY");

  private StoreFailures() {}

  /** The exception to complete a {@code kind} query with for {@code error}. */
  static Throwable map(String kind, Throwable error) {
    Throwable e = unwrap(error);
    if (e instanceof InvalidRequestException || e instanceof RetriableStoreException
        || e instanceof RateLimitedException) {
      return e;
    }
    if (e instanceof RedisCommandExecutionException redis) {
      String m = String.valueOf(redis.getMessage());
      return TRANSIENT_REDIS_ERRORS.stream().anyMatch(m::startsWith)
          ? new RetriableStoreException("Redis " + kind + " failed", e) : e;
    }
    if (e instanceof RedisException || e instanceof TimeoutException) {
      return new RetriableStoreException("Redis " + kind + " failed", e);
    }
    if (e instanceof IOException) {
      return permanentHBase(e) ? e : new RetriableStoreException("HBase " + kind + " failed", e);
    }
    return e;
  }

  private static Throwable unwrap(Throwable error) {
    Throwable e = error;
    while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
      e = e.getCause();
    }
    return e;
  }

  /** Retrying cannot create a missing table or column family. */
  private static boolean permanentHBase(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (t instanceof TableNotFoundException || t instanceof NoSuchColumnFamilyException) {
        return true;
      }
    }
    return false;
  }
}
