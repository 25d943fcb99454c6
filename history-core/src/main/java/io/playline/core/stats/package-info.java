/**
 * Per-item counters (viewers, finishes, last view time): a read model the job builds from the
 * history stream ({@code io.playline.job.stats}), kept in HBase ({@link ItemStatsLayout}) and read
 * by the internal API through a short Redis cache ({@link ItemStatsReader}).
 */
@NullMarked
package io.playline.core.stats;

import org.jspecify.annotations.NullMarked;
