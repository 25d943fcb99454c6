/** JMH microbenchmarks of the hot paths: frame codec, a heartbeat's ack to its frame bytes, heartbeat batching, write-back merging. */
@NullMarked
package io.playline.bench.jmh;

import org.jspecify.annotations.NullMarked;
