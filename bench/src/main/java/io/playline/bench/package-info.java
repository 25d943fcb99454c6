/**
 * The Playline benchmark, {@code bin/playline bench}: its command line ({@link
 * io.playline.bench.BenchCli}, with {@code jmh}, {@code reads}, {@code heavy} and {@code hostile}
 * as subcommands) and the load scenarios it runs itself ({@link io.playline.bench.BenchRunner}:
 * passes alternating Playline with its baselines, a bare WebSocket echo server and Redis alone, on
 * its flags, {@link io.playline.bench.BenchOptions}). The root uses the subpackages and none uses
 * it back: {@code load/} (players), {@code baseline/}, {@code probe/} (what a node spends), {@code
 * report/}, {@code reads/} and {@code hostile/}, and {@code common/} (what every command shares:
 * {@code --endpoints}, the configuration it reads, the duration flags), which uses none of them.
 */
@NullMarked
package io.playline.bench;

import org.jspecify.annotations.NullMarked;
