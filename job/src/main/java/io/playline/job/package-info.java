/** The job role: consumes the write-back topic, persists history to HBase and recovers what a crash left unpersisted. */
@NullMarked
package io.playline.job;

import org.jspecify.annotations.NullMarked;
