/**
 * The read benchmarks: {@code bin/playline bench reads} ({@link io.playline.bench.reads.ReadsCommand}:
 * history pages and progress over the internal API's gRPC and Connect ports, against Redis alone
 * with the same commands; warm Redis reads and stored HBase reads) and {@code bench heavy} ({@link
 * io.playline.bench.reads.HeavyCommand}: one user with a long stored history, live cells against
 * rolled-up chunks).
 */
@NullMarked
package io.playline.bench.reads;

import org.jspecify.annotations.NullMarked;
