/**
 * The SDK's machinery, not API: the transport-neutral {@link
 * io.playline.client.internal.ClientSession} (auth, heartbeats, acks, resends, queries, reconnects)
 * confined to one loop, the {@link io.playline.client.internal.Transport} it drives (Netty
 * WebSocket or gRPC, OkHttp WebSocket), the loops, backoff, and the flag stores.
 */
@NullMarked
package io.playline.client.internal;

import org.jspecify.annotations.NullMarked;
