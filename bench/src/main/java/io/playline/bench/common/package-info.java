/**
 * What every bench command shares and reads the same way: {@link
 * io.playline.bench.common.EndpointsOption} ({@code --endpoints}: which running standalone), {@link
 * io.playline.bench.common.BenchSettings} (the layered Playline configuration: data dir, token
 * keys) and {@link io.playline.bench.common.Durations} (the duration flags). It uses no other bench
 * package: the root's load scenarios, {@code reads/} and {@code hostile/} use it.
 */
@NullMarked
package io.playline.bench.common;

import org.jspecify.annotations.NullMarked;
