/**
 * What the bench commands share and read the same way: the picocli mixins of the options several of
 * them declare with one meaning and default ({@link io.playline.bench.common.EndpointsOption}
 * {@code --endpoints}: which running standalone; {@code --secret}, {@code --zone}, {@code --events},
 * {@code --uid-base}, {@code --page}, {@code --no-major-compact}; an option of the same name with
 * another default or meaning stays its command's own, which says why), {@link
 * io.playline.bench.common.BenchSettings} (the layered Playline configuration: data dir, token
 * keys), {@link io.playline.bench.common.Durations} (the duration flags) and {@link
 * io.playline.bench.common.HistoryTables} (users written through the job's sink, major compaction).
 * It uses no other bench package: {@code heartbeats/}, {@code reads/}, {@code heavy/} and {@code
 * hostile/} use it.
 */
@NullMarked
package io.playline.bench.common;

import org.jspecify.annotations.NullMarked;
