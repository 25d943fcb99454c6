package io.playline.bench.probe;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * What {@code <data dir>/endpoints.json} (written by {@code bin/playline standalone}) or a gateway
 * role's endpoints file says: the process, its player and admin addresses, and the Redis it uses.
 * Immutable.
 *
 * @param pid the server process
 * @param websocket {@code ws://...} player stream URL
 * @param grpc {@code host:port} of the player gRPC stream
 * @param admin {@code http://...} admin URL
 * @param redisUri the Redis the server writes to, null when the file does not say
 */
public record Endpoints(long pid, URI websocket, URI grpc, URI admin, @Nullable String redisUri) {

  public static Endpoints read(Path file) throws IOException {
    JsonNode root = new ObjectMapper().readTree(file.toFile());
    JsonNode own = root.path("playline");
    if (own.isMissingNode() || !own.hasNonNull("websocket")) {
      throw new IOException(file + " has no playline.websocket entry");
    }
    JsonNode redis = root.path("redis").path("uri");
    return new Endpoints(root.path("pid").asLong(-1), URI.create(own.get("websocket").asText()),
        URI.create("grpc://" + own.path("grpc").asText("127.0.0.1:9090")),
        URI.create(own.path("admin").asText("http://127.0.0.1:9100")), redis.isTextual() ? redis.asText() : null);
  }

  public ServerProbe probe(String name) {
    return new ServerProbe(name, pid, admin);
  }
}
