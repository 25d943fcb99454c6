/**
 * The read benchmark, {@code bin/playline bench reads} ({@link io.playline.bench.reads.ReadsCommand}):
 * history pages and progress over the internal API's gRPC and Connect ports, against Redis alone
 * with the same commands; warm Redis reads and stored HBase reads.
 */
@NullMarked
package io.playline.bench.reads;

import org.jspecify.annotations.NullMarked;
