package io.playline.bench.probe;

import io.playline.roles.endpoints.Endpoints.Serves;
import io.playline.roles.endpoints.Endpoints;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * A server the benchmark loads and probes, as its endpoints file (a standalone's {@code
 * endpoints.json} or a gateway role's {@code --endpoints-out}) names it: the process, its player
 * and admin addresses, and the Redis it uses. Immutable.
 *
 * @param pid the server process
 * @param websocket {@code ws://...} player stream URL
 * @param grpc {@code host:port} of the player gRPC stream
 * @param admin {@code http://...} admin URL
 * @param redisUri the Redis the server writes to, null when the file does not say
 */
public record LoadTarget(long pid, URI websocket, URI grpc, URI admin, @Nullable String redisUri) {

  /** The server {@code file} describes; it must name {@code playline.websocket}. */
  public static LoadTarget read(Path file) throws IOException {
    Endpoints e = Endpoints.read(file, Endpoints.Field.WEBSOCKET);
    Long pid = e.pid();
    return new LoadTarget(pid == null ? -1 : pid, URI.create(e.serves(Serves::websocket).orElseThrow()),
        URI.create("grpc://" + e.serves(Serves::grpc).orElse("127.0.0.1:9090")),
        URI.create(e.serves(Serves::admin).orElse("http://127.0.0.1:9100")), e.redisUri().orElse(null));
  }

  public ServerProbe probe(String name) {
    return new ServerProbe(name, pid, admin);
  }
}
