/**
 * The job's configuration: its keys ({@link io.playline.job.config.JobSettings}) and the typed
 * record read from them with history-core's ({@link io.playline.job.config.JobConfig}). Depends on
 * nothing of the job, so every part of it may read it.
 */
@NullMarked
package io.playline.job.config;

import org.jspecify.annotations.NullMarked;
