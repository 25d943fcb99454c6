/** Crash recovery: the periodic sweep of old write-back recovery marks. */
@NullMarked
package io.playline.job.recover;

import org.jspecify.annotations.NullMarked;
