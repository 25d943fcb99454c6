/**
 * The job role: consumes the write-back topic, persists history to HBase and recovers what a crash
 * left unpersisted. {@link io.playline.job.PlaylineJob} assembles the parts ({@code consume/},
 * {@code sink/}, {@code recover/}, {@code compact/}, {@code stats/}, {@code redis/}); none uses it
 * back: what they share is in {@code config/} ({@code JobConfig}, {@code JobSettings}) and {@code
 * metrics/} ({@code JobMetrics}).
 */
@NullMarked
package io.playline.job;

import org.jspecify.annotations.NullMarked;
