/**
 * Connection sessions: authentication once per connection, the resume store of server-side sessions, and
 * the edge's per-connection meters ({@link io.playline.gateway.session.GatewayMetrics}).
 */
@NullMarked
package io.playline.gateway.session;

import org.jspecify.annotations.NullMarked;
