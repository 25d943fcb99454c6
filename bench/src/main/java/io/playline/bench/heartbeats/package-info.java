/**
 * The heartbeat benchmark, what {@code bin/playline bench} runs without a subcommand: {@link
 * io.playline.bench.heartbeats.BenchRunner} runs passes alternating Playline with its baselines
 * ({@code baseline/}: a bare WebSocket echo server and Redis alone) on the flags of {@link
 * io.playline.bench.heartbeats.BenchOptions} and a {@link io.playline.bench.heartbeats.Scenario}'s
 * defaults, one {@link io.playline.bench.heartbeats.LoadRun} each, and prints the medians and the
 * issue's targets ({@code report/}).
 */
@NullMarked
package io.playline.bench.heartbeats;

import org.jspecify.annotations.NullMarked;
