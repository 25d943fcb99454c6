/** In-memory write-back aggregation of changed items, flushed to Kafka by size or interval. */
@NullMarked
package io.playline.core.aggregate;

import org.jspecify.annotations.NullMarked;
