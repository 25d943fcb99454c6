/**
 * The Playline benchmark, {@code bin/playline bench}: the load scenarios ({@link
 * io.playline.bench.BenchRunner}: passes alternating Playline with its baselines, a bare WebSocket
 * echo server and Redis alone), the options every command shares ({@link
 * io.playline.bench.BenchOptions}, {@link io.playline.bench.EndpointsOption}), and the subcommands'
 * packages: {@code load/} (players), {@code baseline/}, {@code probe/} (what a node spends),
 * {@code report/}, {@code reads/} and {@code hostile/}.
 */
@NullMarked
package io.playline.bench;

import org.jspecify.annotations.NullMarked;
