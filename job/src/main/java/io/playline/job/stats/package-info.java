/** The per-item counters' write side: built from the history stream beside the history sink. */
@NullMarked
package io.playline.job.stats;

import org.jspecify.annotations.NullMarked;
