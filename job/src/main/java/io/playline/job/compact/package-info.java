/**
 * Which users the job rolls up into compressed chunks, and when: {@link
 * io.playline.job.compact.Compactions} counts what the consumer persists per user and checks a user
 * on a background thread after every {@code history.compact.check.every} records; the roll-up
 * itself is history-core's {@link io.playline.core.compact.HistoryCompactor}.
 */
@NullMarked
package io.playline.job.compact;

import org.jspecify.annotations.NullMarked;
