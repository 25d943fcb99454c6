/** Layered, validated configuration shared by every Playline role. */
@NullMarked
package io.playline.core.config;

import org.jspecify.annotations.NullMarked;
