package io.playline.core.write;

import java.util.Collection;

/**
 * Told the recovery-log entries all of whose items Kafka acknowledged in write-back records: they
 * may go. Implementations never block the caller (the write-back's flush thread).
 */
@FunctionalInterface
public interface RecoveryTrim {
  void acked(Collection<RecoveryEntry> entries);

  /** Keeps every entry: the job's recovery sweep persists them after {@code recovery.age}. */
  RecoveryTrim NONE = entries -> {};
}
