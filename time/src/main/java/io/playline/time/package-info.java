/** The one clock of a Playline process ({@link io.playline.time.Time}); depends on nothing. */
@NullMarked
package io.playline.time;

import org.jspecify.annotations.NullMarked;
