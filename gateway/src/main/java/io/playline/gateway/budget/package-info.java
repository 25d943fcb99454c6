/**
 * What one user may spend across all its connections and nodes (events per second, deletes per
 * minute, authentications), shared by the session (authentication) and the heartbeat step.
 */
@NullMarked
package io.playline.gateway.budget;

import org.jspecify.annotations.NullMarked;
