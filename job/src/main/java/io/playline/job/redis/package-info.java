/** What the job reads from and clears in Redis: current records and write-back recovery marks. */
@NullMarked
package io.playline.job.redis;

import org.jspecify.annotations.NullMarked;
