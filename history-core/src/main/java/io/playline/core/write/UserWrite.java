package io.playline.core.write;

import io.playline.proto.v1.HistoryRecord;
import java.util.List;

/**
 * One user's records to apply in one atomic step: already validated, view times already clamped.
 *
 * @param uid the user
 * @param records in arrival order; the same item may appear more than once
 */
public record UserWrite(long uid, List<HistoryRecord> records) {
  public UserWrite {
    records = List.copyOf(records);
  }
}
