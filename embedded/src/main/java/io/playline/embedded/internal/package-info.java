/**
 * Not API: code that runs inside the child JVMs started by {@code io.playline.embedded}.
 */
@NullMarked
package io.playline.embedded.internal;

import org.jspecify.annotations.NullMarked;
