/**
 * The gateway's configuration keys ({@link io.playline.core.config.Setting} definitions, one
 * catalogue per area): what the gateway's config records read, and what docs/configuration.md
 * lists. Depends on nothing of the gateway, so every package may read them.
 */
@NullMarked
package io.playline.gateway.config;

import org.jspecify.annotations.NullMarked;
