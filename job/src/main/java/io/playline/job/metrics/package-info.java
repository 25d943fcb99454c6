/**
 * The job's meters ({@link io.playline.job.metrics.JobMetrics}), which the consumer, the sink and
 * the recovery sweep count into. Depends on nothing of the job.
 */
@NullMarked
package io.playline.job.metrics;

import org.jspecify.annotations.NullMarked;
