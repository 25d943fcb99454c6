/**
 * The commands of {@code bin/playline} beyond the roles and standalone mode: {@code token}, {@code play},
 * {@code status}, and the operator commands against a running Playline's internal API ({@code history …}).
 */
@NullMarked
package io.playline.standalone.cli;

import org.jspecify.annotations.NullMarked;
