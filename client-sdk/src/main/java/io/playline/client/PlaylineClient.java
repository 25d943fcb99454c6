package io.playline.client;

import io.netty.channel.EventLoopGroup;
import io.playline.client.internal.ClientConfig;
import io.playline.client.internal.NettyRuntime;
import org.jspecify.annotations.Nullable;

/**
 * A player's persistent stream to a Playline gateway over Netty: WebSocket or gRPC, for
 * server-side JVMs (desktop, TV boxes, test rigs, the CLI). Everything it does is {@link
 * AbstractPlaylineClient}'s; this class adds the wire. Its state lives on one Netty event loop (of
 * the client's own one-thread group, or of a group you supply, which {@link #close()} then leaves
 * running). On Android use {@code OkHttpPlaylineClient} (client-okhttp) instead: the same client,
 * without Netty.
 */
public final class PlaylineClient extends AbstractPlaylineClient {
  PlaylineClient(ClientConfig config, TransportKind transport, @Nullable EventLoopGroup group) {
    super(config, new NettyRuntime(config, transport, group));
  }

  /** A builder; {@code endpoint}, {@code tokenSupplier} and {@code deviceId} are required. */
  public static PlaylineClientBuilder builder() {
    return new PlaylineClientBuilder();
  }
}
