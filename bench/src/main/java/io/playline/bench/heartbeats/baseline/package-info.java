/** The ceilings Playline is compared with: a bare Netty WebSocket echo server and Redis alone running Playline's command mix. */
@NullMarked
package io.playline.bench.heartbeats.baseline;

import org.jspecify.annotations.NullMarked;
