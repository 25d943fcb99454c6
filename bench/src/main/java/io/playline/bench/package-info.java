/**
 * The Playline benchmark, {@code bin/playline bench}: its command line ({@link
 * io.playline.bench.BenchCli}, which runs the heartbeat benchmark, with {@code jmh} ({@link
 * io.playline.bench.JmhCommand}), {@code reads}, {@code heavy} and {@code hostile} as subcommands).
 * A package per benchmark: {@code heartbeats/} (with its {@code baseline/} and {@code report/}),
 * {@code reads/}, {@code heavy/} and {@code hostile/}; what several of them use: {@code load/}
 * (players), {@code probe/} (what a node spends) and {@code common/} (the options every command
 * declares alike, the configuration it reads, the duration flags, the history tables), which uses
 * no other bench package. The root uses the subpackages and none uses it back.
 */
@NullMarked
package io.playline.bench;

import org.jspecify.annotations.NullMarked;
