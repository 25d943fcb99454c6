/** Heartbeats from every connection batched into one Redis round trip, then acked per connection. */
@NullMarked
package io.playline.gateway.heartbeat;

import org.jspecify.annotations.NullMarked;
