/**
 * What every bench command shares and reads the same way: {@link
 * io.playline.bench.common.EndpointsOption} ({@code --endpoints}: which running standalone), {@link
 * io.playline.bench.common.BenchSettings} (the layered Playline configuration: data dir, token
 * keys), {@link io.playline.bench.common.Durations} (the duration flags) and {@link
 * io.playline.bench.common.HistoryTables} (users written through the job's sink, major compaction).
 * It uses no other bench package: {@code heartbeats/}, {@code reads/}, {@code heavy/} and {@code
 * hostile/} use it.
 */
@NullMarked
package io.playline.bench.common;

import org.jspecify.annotations.NullMarked;
