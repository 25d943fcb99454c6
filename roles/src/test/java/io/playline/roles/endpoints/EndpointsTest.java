package io.playline.roles.endpoints;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.playline.roles.endpoints.Endpoints.Field;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Endpoints} writes the bytes the untyped writers wrote (indented JSON of the same fields,
 * in the same order), reads back what it wrote, and names the file and the field of what is
 * missing or malformed.
 */
class EndpointsTest {
  @TempDir Path dir;

  private static final Endpoints.Serves SERVES = new Endpoints.Serves("ws://127.0.0.1:8080/ws", "127.0.0.1:9090",
      "127.0.0.1:9091", "http://127.0.0.1:9095", "http://127.0.0.1:9100", null);

  /** What the writers before the type wrote: a map of maps, indented. */
  private String untyped(Map<String, Object> root) throws IOException {
    Path file = dir.resolve("untyped.json");
    new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(file.toFile(), root);
    return Files.readString(file);
  }

  private String written(Endpoints e) throws IOException {
    Path file = dir.resolve(Endpoints.FILE_NAME);
    e.write(file);
    assertThat(Endpoints.read(file)).isEqualTo(e);
    return Files.readString(file);
  }

  private static Map<String, Object> map(Object... kv) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], kv[i + 1]);
    }
    return m;
  }

  @Test
  void aStandalonesFileKeepsItsFormatAndReadsBack() throws IOException {
    Endpoints e = new Endpoints(4242L, null, "2026-11-27T18:00:00Z", null,
        new Endpoints.Redis("redis://127.0.0.1:6379", null, true, null, null),
        new Endpoints.Kafka("127.0.0.1:9092", true), new Endpoints.HBase("127.0.0.1", 2181, true),
        Endpoints.Serves.of(Map.of("websocket", "ws://127.0.0.1:8080/ws", "admin", "http://127.0.0.1:9100",
            "demo", "http://127.0.0.1:8080/")), null);
    assertThat(written(e)).isEqualTo(untyped(map("pid", 4242L, "startedAt", "2026-11-27T18:00:00Z",
        "redis", map("uri", "redis://127.0.0.1:6379", "embedded", true),
        "kafka", map("bootstrapServers", "127.0.0.1:9092", "embedded", true),
        "hbase", map("zookeeperQuorum", "127.0.0.1", "zookeeperPort", 2181, "embedded", true),
        "playline", map("websocket", "ws://127.0.0.1:8080/ws", "admin", "http://127.0.0.1:9100",
            "demo", "http://127.0.0.1:8080/"))));
  }

  @Test
  void aRolesFileKeepsItsFormatAndReadsBack() throws IOException {
    Endpoints e = new Endpoints(7L, "gateway", null, null, Endpoints.Redis.of("redis://10.0.0.1:7000", true),
        new Endpoints.Kafka("k:9092", null), new Endpoints.HBase("zk", 2182, null), SERVES, null);
    assertThat(written(e)).isEqualTo(untyped(map("pid", 7L, "role", "gateway",
        "redis", map("uri", "redis://10.0.0.1:7000", "cluster", true), "kafka", map("bootstrapServers", "k:9092"),
        "hbase", map("zookeeperQuorum", "zk", "zookeeperPort", 2182), "playline", SERVES.byName())));
  }

  @Test
  void theTopologysFileKeepsItsFormatAndReadsBack() throws IOException {
    Endpoints e = new Endpoints(null, null, null, "/run/backends.json",
        new Endpoints.Redis(null, null, null, "redis://127.0.0.1:7000",
            List.of(new Endpoints.RedisNode("redis://127.0.0.1:7000"), new Endpoints.RedisNode("redis://127.0.0.1:7001"))),
        new Endpoints.Kafka("k:9092", null), new Endpoints.HBase("127.0.0.1", 2181, null), null,
        List.of(Endpoints.RoleEntry.of("job-1", "job", 11,
                new Endpoints.Serves(null, null, null, null, "http://a", null)),
            Endpoints.RoleEntry.of("gw-1", "gateway", 12, SERVES)));
    assertThat(written(e)).isEqualTo(untyped(map("backends", "/run/backends.json",
        "redis", map("seed", "redis://127.0.0.1:7000", "nodes", List.of(map("uri", "redis://127.0.0.1:7000"),
            map("uri", "redis://127.0.0.1:7001"))),
        "kafka", map("bootstrapServers", "k:9092"), "hbase", map("zookeeperQuorum", "127.0.0.1", "zookeeperPort", 2181),
        "roles", List.of(map("name", "job-1", "role", "job", "pid", 11L, "admin", "http://a"),
            map("name", "gw-1", "role", "gateway", "pid", 12L, "websocket", "ws://127.0.0.1:8080/ws",
                "grpc", "127.0.0.1:9090", "api", "127.0.0.1:9091", "apiHttp", "http://127.0.0.1:9095",
                "admin", "http://127.0.0.1:9100")))));
  }

  @Test
  void aFileWrittenBeforeTheApisHttpPortWasListedReadsWithout() throws IOException {
    Path file = write("{\"playline\": {\"api\": \"127.0.0.1:9091\", \"admin\": \"http://127.0.0.1:9100\"},"
        + " \"roles\": [{\"name\": \"api-1\", \"role\": \"api\", \"pid\": 3, \"api\": \"127.0.0.1:9191\"}]}");
    Endpoints old = Endpoints.read(file, Field.API);
    assertThat(old.serves(Endpoints.Serves::apiHttp)).isEmpty();
    assertThat(old.playline().byName()).containsOnlyKeys("api", "admin");
    assertThat(old.roles()).singleElement().satisfies(r -> assertThat(r.apiHttp()).isNull());
  }

  @Test
  void aMissingFileIsNamed() {
    Path missing = dir.resolve("missing.json");
    assertThatThrownBy(() -> Endpoints.read(missing)).isInstanceOf(IOException.class)
        .hasMessageStartingWith(missing + ": no such file");
  }

  @Test
  void aFileThatIsNotJsonIsNamedWithWhereItBreaks() throws IOException {
    Path file = write("{\"redis\": {\"uri\": ");
    assertThatThrownBy(() -> Endpoints.read(file)).isInstanceOf(IOException.class)
        .hasMessageStartingWith(file + ": not an endpoints JSON object at line 1");
    Path array = write("[1, 2]");
    assertThatThrownBy(() -> Endpoints.read(array)).hasMessageStartingWith(array + ": not an endpoints JSON object");
  }

  @Test
  void aFieldOfTheWrongTypeIsNamedWithWhatWasExpected() throws IOException {
    Path port = write("{\"hbase\": {\"zookeeperQuorum\": \"zk\", \"zookeeperPort\": \"two\"}}");
    assertThatThrownBy(() -> Endpoints.read(port))
        .hasMessage(port + ": field hbase.zookeeperPort: expected a number, got 'two'");
    Path cluster = write("{\"redis\": {\"uri\": \"redis://r:1\", \"cluster\": \"maybe\"}}");
    assertThatThrownBy(() -> Endpoints.read(cluster))
        .hasMessage(cluster + ": field redis.cluster: expected true or false, got 'maybe'");
    Path pid = write("{\"roles\": [{\"name\": \"gw-1\", \"role\": \"gateway\", \"pid\": \"x\"}]}");
    assertThatThrownBy(() -> Endpoints.read(pid)).hasMessageStartingWith(pid + ": field roles[0].pid: expected a number");
    Path redis = write("{\"redis\": \"redis://r:1\"}");
    assertThatThrownBy(() -> Endpoints.read(redis)).hasMessageStartingWith(redis + ": field redis: expected an object");
  }

  @Test
  void aRequiredFieldThatIsMissingOrBlankIsNamed() throws IOException {
    Path file = write("{\"redis\": {\"uri\": \" \"}, \"playline\": {\"websocket\": \"ws://h:1/ws\"}}");
    assertThat(Endpoints.read(file, Field.WEBSOCKET).serves(Endpoints.Serves::websocket)).contains("ws://h:1/ws");
    assertThatThrownBy(() -> Endpoints.read(file, Field.WEBSOCKET, Field.API))
        .hasMessageStartingWith(file + ": no playline.api");
    assertThatThrownBy(() -> Endpoints.read(file, Field.REDIS_URI)).hasMessageStartingWith(file + ": no redis.uri");
    assertThatThrownBy(() -> Endpoints.read(file, Field.HBASE_ZOOKEEPER_PORT))
        .hasMessageStartingWith(file + ": no hbase.zookeeperPort");
  }

  @Test
  void anAddressTheFileCannotHoldIsRefused() {
    assertThatThrownBy(() -> Endpoints.Serves.of(Map.of("metrics", "http://h:1")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("playline.metrics");
  }

  private Path write(String json) throws IOException {
    Path file = Files.createTempFile(dir, "endpoints", ".json");
    Files.writeString(file, json);
    return file;
  }
}
