package io.playline.roles.endpoints;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The one type of {@code endpoints.json}, read and written by everything that touches one: what a
 * standalone writes into its data dir ({@code pid}, {@code startedAt}, backends marked {@code
 * embedded}, {@code playline}), what a role writes to {@code --endpoints-out} ({@code pid}, {@code
 * role}, backends, {@code playline}), the local topology's {@code backends.json} (backends only) and
 * its {@code endpoints.json} ({@code backends}, Redis {@code seed} and {@code nodes}, {@code roles}).
 * Absent parts are null and are not written; field names and nesting are the file format the
 * README, {@code docs/}, {@code .ci/smoke-dist} and {@code deploy/local/up} read. Immutable.
 *
 * <p>{@link #read} names the file and the field of whatever is missing or malformed.
 *
 * @param pid the process that wrote the file
 * @param role {@code gateway}, {@code api} or {@code job} (a role's file)
 * @param startedAt when the standalone started, ISO-8601 (a standalone's file)
 * @param backends the {@code backends.json} the topology's roles were pointed at (the topology's file)
 * @param redis where Redis is
 * @param kafka where Kafka is
 * @param hbase where HBase is
 * @param playline what this process serves
 * @param roles every role process of the local topology
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"pid", "role", "startedAt", "backends", "redis", "kafka", "hbase", "playline", "roles"})
public record Endpoints(@Nullable Long pid, @Nullable String role, @Nullable String startedAt,
    @Nullable String backends, @Nullable Redis redis, @Nullable Kafka kafka, @Nullable HBase hbase,
    @Nullable Serves playline, @Nullable List<RoleEntry> roles) {

  /** The file's name in a data dir. */
  public static final String FILE_NAME = "endpoints.json";

  private static final ObjectMapper JSON = new ObjectMapper()
      .enable(SerializationFeature.INDENT_OUTPUT)
      .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  public Endpoints {
    roles = roles == null ? null : List.copyOf(roles);
  }

  /**
   * Redis: a single server's or cluster seed's {@code uri}, or the topology's {@code seed} and {@code nodes}.
   *
   * @param uri a Lettuce URI
   * @param cluster whether {@code uri} is one seed node of a Redis Cluster
   * @param embedded whether standalone runs it
   * @param seed the topology's cluster seed node
   * @param nodes every node of the topology's cluster
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonPropertyOrder({"uri", "cluster", "embedded", "seed", "nodes"})
  public record Redis(@Nullable String uri, @Nullable Boolean cluster, @Nullable Boolean embedded,
      @Nullable String seed, @Nullable List<RedisNode> nodes) {
    public Redis {
      nodes = nodes == null ? null : List.copyOf(nodes);
    }

    /** A single server (or cluster seed) as a role or the topology's {@code backends.json} names it. */
    public static Redis of(String uri, boolean cluster) {
      return new Redis(uri, cluster, null, null, null);
    }
  }

  /** One node of a Redis Cluster. */
  public record RedisNode(String uri) {}

  /**
   * Kafka.
   *
   * @param bootstrapServers {@code host:port,...}
   * @param embedded whether standalone runs it
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonPropertyOrder({"bootstrapServers", "embedded"})
  public record Kafka(@Nullable String bootstrapServers, @Nullable Boolean embedded) {}

  /**
   * HBase, by its ZooKeeper.
   *
   * @param zookeeperQuorum ZooKeeper hosts
   * @param zookeeperPort ZooKeeper's client port
   * @param embedded whether standalone runs it
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonPropertyOrder({"zookeeperQuorum", "zookeeperPort", "embedded"})
  public record HBase(@Nullable String zookeeperQuorum, @Nullable Integer zookeeperPort, @Nullable Boolean embedded) {}

  /**
   * What a Playline process serves, on loopback; null where it serves no such thing.
   *
   * @param websocket the player WebSocket URL ({@code ws://} or {@code wss://})
   * @param grpc the player gRPC stream, {@code host:port}
   * @param api the internal History API's gRPC port, {@code host:port}
   * @param apiHttp the same API over HTTP (the Connect protocol), its base URL ({@code http://host:port}
   *     or {@code https://}); absent when {@code api.http.enabled} is false, and in files written
   *     before it was listed
   * @param admin the admin URL ({@code http://host:port})
   * @param demo the demo web player's URL
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonPropertyOrder({"websocket", "grpc", "api", "apiHttp", "admin", "demo"})
  public record Serves(@Nullable String websocket, @Nullable String grpc, @Nullable String api,
      @Nullable String apiHttp, @Nullable String admin, @Nullable String demo) {
    private static final List<String> NAMES = List.of("websocket", "grpc", "api", "apiHttp", "admin", "demo");

    /**
     * The addresses of {@code byName} ({@code websocket}, {@code grpc}, {@code api}, {@code
     * apiHttp}, {@code admin}, {@code demo}).
     *
     * @throws IllegalArgumentException for any other name, which the file could not hold
     */
    public static Serves of(Map<String, String> byName) {
      for (String name : byName.keySet()) {
        if (!NAMES.contains(name)) {
          throw new IllegalArgumentException("playline." + name + ": not an address (expected one of " + NAMES + ")");
        }
      }
      return new Serves(byName.get("websocket"), byName.get("grpc"), byName.get("api"), byName.get("apiHttp"),
          byName.get("admin"), byName.get("demo"));
    }

    /** The addresses that are set, by name, in the file's order. */
    public Map<String, String> byName() {
      Map<String, String> all = new LinkedHashMap<>();
      List<@Nullable String> values = Arrays.asList(websocket, grpc, api, apiHttp, admin, demo);
      for (int i = 0; i < NAMES.size(); i++) {
        String v = values.get(i);
        if (v != null) {
          all.put(NAMES.get(i), v);
        }
      }
      return Collections.unmodifiableMap(all);
    }
  }

  /**
   * One role process of the local topology and what it serves.
   *
   * @param name its name (also its {@code node.id})
   * @param role {@code gateway}, {@code api} or {@code job}
   * @param pid its process id
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonPropertyOrder({"name", "role", "pid", "websocket", "grpc", "api", "apiHttp", "admin"})
  public record RoleEntry(String name, String role, long pid, @Nullable String websocket, @Nullable String grpc,
      @Nullable String api, @Nullable String apiHttp, @Nullable String admin) {
    public static RoleEntry of(String name, String role, long pid, Serves serves) {
      return new RoleEntry(name, role, pid, serves.websocket(), serves.grpc(), serves.api(), serves.apiHttp(),
          serves.admin());
    }
  }

  /** A field a reader cannot do without; {@link #read(Path, Field...)} checks each is there. */
  public enum Field {
    REDIS_URI("redis.uri", e -> e.redisUri()),
    KAFKA_BOOTSTRAP_SERVERS("kafka.bootstrapServers", e -> e.kafkaBootstrapServers()),
    HBASE_ZOOKEEPER_QUORUM("hbase.zookeeperQuorum", e -> e.hbaseZookeeperQuorum()),
    HBASE_ZOOKEEPER_PORT("hbase.zookeeperPort", e -> e.hbaseZookeeperPort()),
    WEBSOCKET("playline.websocket", e -> e.serves(Serves::websocket)),
    API("playline.api", e -> e.serves(Serves::api)),
    API_HTTP("playline.apiHttp", e -> e.serves(Serves::apiHttp));

    private final String path;
    private final Function<Endpoints, Optional<?>> value;

    Field(String path, Function<Endpoints, Optional<?>> value) {
      this.path = path;
      this.value = value;
    }

    /** The field as the file nests it, e.g. {@code redis.uri}. */
    public String path() {
      return path;
    }

    /** Throws, naming {@code file} and this field, unless {@code endpoints} has it. */
    public void require(Path file, Endpoints endpoints) throws IOException {
      if (value.apply(endpoints).isEmpty()) {
        throw new IOException(file + ": no " + path + " (is it the endpoints file of the right process?)");
      }
    }
  }

  /**
   * Reads {@code file} and checks that it holds every field of {@code required}.
   *
   * @throws IOException naming {@code file} when it is missing, unreadable, not JSON, has a field of
   *     the wrong type (naming the field) or lacks a required field (naming it)
   */
  public static Endpoints read(Path file, Field... required) throws IOException {
    if (!Files.isRegularFile(file)) {
      throw new IOException(file + ": no such file (a running standalone writes <data dir>/" + FILE_NAME + ", a role "
          + "its --endpoints-out, the local topology deploy/local/run/" + FILE_NAME + ")");
    }
    Endpoints endpoints;
    try {
      endpoints = JSON.readValue(file.toFile(), Endpoints.class);
    } catch (JsonProcessingException e) {
      throw malformed(file, e);
    }
    if (endpoints == null) {
      throw new IOException(file + ": holds null, not an endpoints object");
    }
    for (Field f : required) {
      f.require(file, endpoints);
    }
    return endpoints;
  }

  /** Writes this as indented JSON to {@code target} atomically (a temp file beside it, then a move). */
  public void write(Path target) throws IOException {
    Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
    JSON.writeValue(tmp.toFile(), this);
    Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  /** {@code redis.uri}, if set and not blank. */
  public Optional<String> redisUri() {
    return text(redis == null ? null : redis.uri());
  }

  /** {@code redis.cluster}, if set. */
  public Optional<Boolean> redisCluster() {
    return Optional.ofNullable(redis == null ? null : redis.cluster());
  }

  /** {@code kafka.bootstrapServers}, if set and not blank. */
  public Optional<String> kafkaBootstrapServers() {
    return text(kafka == null ? null : kafka.bootstrapServers());
  }

  /** {@code hbase.zookeeperQuorum}, if set and not blank. */
  public Optional<String> hbaseZookeeperQuorum() {
    return text(hbase == null ? null : hbase.zookeeperQuorum());
  }

  /** {@code hbase.zookeeperPort}, if set. */
  public Optional<Integer> hbaseZookeeperPort() {
    return Optional.ofNullable(hbase == null ? null : hbase.zookeeperPort());
  }

  /** One address of {@code playline}, if set and not blank. */
  public Optional<String> serves(Function<Serves, @Nullable String> address) {
    return text(playline == null ? null : address.apply(playline));
  }

  private static Optional<String> text(@Nullable String s) {
    return s == null || s.isBlank() ? Optional.empty() : Optional.of(s);
  }

  private static IOException malformed(Path file, JsonProcessingException e) {
    if (e instanceof MismatchedInputException m && !m.getPath().isEmpty()) {
      String got = m instanceof InvalidFormatException f ? ", got '" + f.getValue() + "'" : "";
      return new IOException(file + ": field " + path(m.getPath()) + ": expected " + expected(m.getTargetType()) + got,
          e);
    }
    JsonLocation at = e.getLocation();
    String where = at == null ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr();
    return new IOException(file + ": not an endpoints JSON object" + where + " (" + e.getOriginalMessage() + ")", e);
  }

  private static String path(List<JsonMappingException.Reference> refs) {
    StringBuilder b = new StringBuilder();
    for (JsonMappingException.Reference r : refs) {
      if (r.getFieldName() != null) {
        b.append(b.isEmpty() ? "" : ".").append(r.getFieldName());
      } else {
        b.append('[').append(r.getIndex()).append(']');
      }
    }
    return b.toString();
  }

  private static String expected(@Nullable Class<?> type) {
    if (type == null) {
      return "another type";
    }
    if (type == Boolean.class || type == boolean.class) {
      return "true or false";
    }
    if (Number.class.isAssignableFrom(type) || type.isPrimitive()) {
      return "a number";
    }
    if (type == String.class) {
      return "a string";
    }
    return List.class.isAssignableFrom(type) ? "a list" : "an object";
  }
}
