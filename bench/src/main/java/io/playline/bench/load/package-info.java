/** The load generator: lean player connections over WebSocket or gRPC, pacing, statistics, child processes. */
@NullMarked
package io.playline.bench.load;

import org.jspecify.annotations.NullMarked;
