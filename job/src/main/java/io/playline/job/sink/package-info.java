/** Where history is persisted: the HBase table, its row keys and the sink that writes upserts, deletes and clears. */
@NullMarked
package io.playline.job.sink;

import org.jspecify.annotations.NullMarked;
