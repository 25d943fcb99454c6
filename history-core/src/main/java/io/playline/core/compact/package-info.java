/**
 * Compaction of heavy users' history (Netflix-style): {@link io.playline.core.compact.HistoryCompactor}
 * rolls a user's older live HBase cells up into zstd-compressed chunks ({@link
 * io.playline.core.store.HistoryChunks}) under a versioned index, so a read past Redis stays
 * bounded however long the history. The job decides whom to compact and runs it.
 */
@NullMarked
package io.playline.core.compact;

import org.jspecify.annotations.NullMarked;
