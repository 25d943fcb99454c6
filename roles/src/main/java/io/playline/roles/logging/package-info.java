/** Logging helpers the shipped {@code logback.xml} installs. */
@NullMarked
package io.playline.roles.logging;

import org.jspecify.annotations.NullMarked;
