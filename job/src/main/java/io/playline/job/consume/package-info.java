/** The consumer loop: Kafka write-back batches resolved against Redis and written to HBase before offsets are committed. */
@NullMarked
package io.playline.job.consume;

import org.jspecify.annotations.NullMarked;
