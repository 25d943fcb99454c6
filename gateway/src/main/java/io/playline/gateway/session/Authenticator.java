package io.playline.gateway.session;

import io.playline.node.auth.AuthenticationException;
import java.util.concurrent.CompletionStage;

/**
 * Verifies a player's token once per connection. Pluggable: the default is {@link
 * JwtAuthenticator}; a deployment may call a remote identity service instead.
 *
 * <p>Implementations must not block the calling thread (it is an event loop): answer at once or
 * complete the stage later from another thread. A rejected token completes exceptionally with
 * {@link AuthenticationException}, whose message is safe to show to the client; any other
 * failure is treated as the identity service being unavailable.
 */
@FunctionalInterface
public interface Authenticator {
  CompletionStage<Principal> authenticate(String token);
}
