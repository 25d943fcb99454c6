/**
 * One player stream as the rest of the edge sees it, whichever transport carries it: who is on it
 * ({@link io.playline.gateway.stream.ConnectionIdentity}) and how frames reach the client ({@link
 * io.playline.gateway.stream.StreamTransport}). Depends on no other gateway package, so the
 * session, the heartbeat step and push all build on it without depending on each other.
 */
@NullMarked
package io.playline.gateway.stream;

import org.jspecify.annotations.NullMarked;
