/** JMH microbenchmarks of the hot paths: frame codec, heartbeat batching, write-back merging. */
@NullMarked
package io.playline.bench.jmh;

import org.jspecify.annotations.NullMarked;
