/**
 * {@code endpoints.json}, typed: what a standalone, a role ({@code --endpoints-out}) and the local
 * topology write about themselves and their backends, and what roles ({@code --backends}), the
 * benchmark and the topology's tools read back.
 */
@NullMarked
package io.playline.roles.endpoints;

import org.jspecify.annotations.NullMarked;
