/** The roles' commands ({@code bin/playline gateway|api|job}) and the config options every command shares. */
@NullMarked
package io.playline.roles.cli;

import org.jspecify.annotations.NullMarked;
