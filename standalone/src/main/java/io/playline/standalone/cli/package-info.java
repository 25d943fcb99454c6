/** Operator commands against a running Playline's internal API ({@code bin/playline history …}). */
@NullMarked
package io.playline.standalone.cli;

import org.jspecify.annotations.NullMarked;
