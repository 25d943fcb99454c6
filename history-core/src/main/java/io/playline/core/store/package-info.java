/** Redis key layout, scripts and connections: where history lives in Redis. */
@NullMarked
package io.playline.core.store;

import org.jspecify.annotations.NullMarked;
