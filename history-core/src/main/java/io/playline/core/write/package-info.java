/** The write-through path: validated, clamped events applied to Redis in one atomic step per user, plus the first-today check. */
@NullMarked
package io.playline.core.write;

import org.jspecify.annotations.NullMarked;
