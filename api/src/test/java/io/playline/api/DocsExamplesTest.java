package io.playline.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.playline.api.DocsExamples.Block;
import io.playline.api.DocsExamples.Outcome;
import io.playline.proto.v1.GetPausedRequest;
import io.playline.proto.v1.HistoryGrpc;
import io.playline.proto.v1.ListHistoryRequest;
import io.playline.testing.HBaseNamespace;
import io.playline.testing.KafkaNamespace;
import io.playline.testing.RealHBaseExtension;
import io.playline.testing.RealKafkaExtension;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code docs/api.md} is executed: every {@code sh} block, in page order and in one working
 * directory, against a real api node (real Redis, Kafka and HBase), each command with the host and
 * ports a reader would put in ({@code localhost:9091}, {@code localhost:9095} become the node's),
 * checked against the answer the page shows under it ({@link DocumentedAnswer}); afterwards the
 * user the examples use is as they found it: not paused, no history.
 *
 * <p>The commands run as written, through bash, with three stand-ins on the path: {@code curl} is
 * the real curl that also reports the HTTP status; {@code grpcurl} (which cannot be installed here)
 * is run by {@code buf curl}, which speaks gRPC and server reflection; {@code bin/playline token
 * --service NAME} prints a service token the test minted, since the launcher is built after this
 * module. Without buf the grpcurl blocks are skipped, and the test reports that, except under
 * {@code CI=true}, where it fails.
 */
@ExtendWith({RealRedisExtension.class, RealKafkaExtension.class, RealHBaseExtension.class})
class DocsExamplesTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Path PAGE = ROOT.resolve("docs/api.md");
  private static final Pattern HTTP_STATUS = Pattern.compile("HTTP (\\d{3})");
  private static final long UID = 42;
  private static final boolean CI = "true".equals(System.getenv("CI"));
  private @Nullable ApiTransports transports;
  private @Nullable TestApi api;

  @AfterEach
  void stop() throws InterruptedException {
    if (transports != null) {
      transports.close();
    }
    if (api != null) {
      api.close();
    }
  }

  @Test
  void everyCodeBlockIsAnExampleThatRunsOrTheCliSynopsis() throws IOException {
    assertThat(DocsExamples.fenceLanguages(PAGE)).as("fenced blocks of docs/api.md: sh (run here) or text (a synopsis)")
        .containsOnly("sh", "text").contains("sh");
    for (Block block : DocsExamples.read(PAGE)) {
      assertThat(block.commands()).as("the block at line %d", block.line()).isNotEmpty()
          .allSatisfy(c -> assertThat(c.text().startsWith("export ") || c.answer() != null)
              .as("line %d shows its answer (# → ...): %s", c.line(), c.text()).isTrue());
    }
  }

  @Test
  void everyShellExampleGivesItsDocumentedAnswerAndLeavesTheUserAsItWas(RedisNamespace redis, KafkaNamespace kafka,
      HBaseNamespace hbase, @TempDir Path dir) throws Exception {
    transports = ApiTransports.start(redis, kafka, hbase);
    TestApi node = transports.api();
    Optional<Path> buf = buf();
    Map<String, String> env = environment(dir, buf);
    Map<String, String> ports = Map.of(
        "localhost:9091", "127.0.0.1:" + node.api().address().getPort(),
        "localhost:9095", "127.0.0.1:" + node.api().httpAddress().getPort());
    List<String> skipped = new ArrayList<>();
    int checked = 0;
    for (Block block : DocsExamples.read(PAGE)) {
      if (block.uses("grpcurl") && buf.isEmpty()) {
        if (CI) {
          fail("no buf to run the grpcurl examples at docs/api.md line " + block.line()
              + " (CI=true); .ci/buf-check installs it into .ci/tools/, or set PLAYLINE_BUF");
        }
        skipped.add("the grpcurl block at line " + block.line());
        continue;
      }
      for (Outcome outcome : DocsExamples.run(block, dir, env, ports)) {
        check(outcome);
        checked++;
      }
    }
    assertThat(checked).as("examples run").isGreaterThan(10);
    assertUserAsFound(HistoryGrpc.newBlockingStub(transports.channel()).withDeadlineAfter(20, TimeUnit.SECONDS));
    Assumptions.assumeTrue(skipped.isEmpty(), () -> "skipped, no buf found (set PLAYLINE_BUF, or run .ci/buf-check "
        + "to install it into .ci/tools/): " + skipped);
  }

  @Test
  void reflectionV1AlphaListsTheServicesToBufCurl(RedisNamespace redis, KafkaNamespace kafka, HBaseNamespace hbase)
      throws Exception {
    Optional<Path> buf = buf();
    if (buf.isEmpty()) {
      assertThat(CI).as("buf is needed under CI=true; .ci/buf-check installs it into .ci/tools/").isFalse();
      Assumptions.abort("no buf found (set PLAYLINE_BUF, or run .ci/buf-check to install it into .ci/tools/)");
    }
    api = TestApi.start(redis, kafka, hbase, Map.of());
    Process p = new ProcessBuilder(buf.get().toString(), "curl", "--protocol", "grpc", "--http2-prior-knowledge",
        "--reflect-protocol", "grpc-v1alpha", "--reflect-header", "authorization: " + TestApi.bearer(),
        "--list-services", "http://127.0.0.1:" + api.api().address().getPort()).redirectErrorStream(true).start();
    assertThat(p.waitFor(1, TimeUnit.MINUTES)).as("buf curl finished").isTrue();
    String out = new String(p.getInputStream().readAllBytes());
    assertThat(p.exitValue()).as(out).isZero();
    assertThat(out.lines()).contains(HistoryGrpc.SERVICE_NAME, "grpc.health.v1.Health",
        "grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection");
  }

  /** The command succeeded and gave the answer the page shows, with its HTTP status over curl. */
  private static void check(Outcome outcome) {
    assertThat(outcome.exit()).as(outcome.describe()).isZero();
    if (outcome.command().answer() == null) {
      return;
    }
    DocumentedAnswer answer = DocumentedAnswer.parse(outcome.command().answer());
    if (outcome.command().text().startsWith("curl ")) {
      Matcher status = HTTP_STATUS.matcher(outcome.err());
      assertThat(status.find()).as("an HTTP status\n" + outcome.describe()).isTrue();
      assertThat(Integer.valueOf(status.group(1))).as("HTTP status\n" + outcome.describe())
          .isEqualTo(answer.status());
    }
    assertThat(answer.mismatches(outcome.out())).as("the answer against the documented one\n" + outcome.describe())
        .isEmpty();
  }

  /** The user the examples use is not paused and has no history, as on a fresh node. */
  private static void assertUserAsFound(HistoryGrpc.HistoryBlockingStub history) {
    assertThat(history.getPaused(GetPausedRequest.newBuilder().setUid(UID).build()).getPaused())
        .as("uid %d paused after the examples", UID).isFalse();
    assertThat(history.listHistory(ListHistoryRequest.newBuilder().setUid(UID).build()).getRecordsList())
        .as("uid %d's history after the examples", UID).isEmpty();
  }

  /**
   * What the examples' shell gets: the stand-ins first on the path, {@code bin/playline} in the
   * working directory, the real curl, buf (when found) and a service token.
   */
  private static Map<String, String> environment(Path dir, Optional<Path> buf) throws IOException {
    Path bin = Files.createDirectories(dir.resolve("stand-ins"));
    install("grpcurl", bin.resolve("grpcurl"));
    install("curl", bin.resolve("curl"));
    install("playline", Files.createDirectories(dir.resolve("bin")).resolve("playline"));
    Map<String, String> env = new HashMap<>();
    env.put("PATH", bin + ":" + System.getenv("PATH"));
    env.put("DOCS_REAL_CURL", onPath("curl").orElseThrow(() -> new IllegalStateException("curl is not installed"))
        .toString());
    env.put("DOCS_SERVICE_TOKEN", ServiceTokens.mint(TestApi.API_SECRET, "docs-examples", Duration.ofMinutes(10),
        Instant.now()));
    buf.ifPresent(b -> env.put("DOCS_BUF", b.toString()));
    return env;
  }

  private static void install(String resource, Path target) throws IOException {
    try (InputStream in = DocsExamplesTest.class.getResourceAsStream("/docs-examples/" + resource)) {
      if (in == null) {
        throw new IllegalStateException("no test resource docs-examples/" + resource);
      }
      Files.copy(in, target);
    }
    Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  /**
   * buf: {@code PLAYLINE_BUF}, else the one {@code .ci/buf-check} installs, else one on the path,
   * else the one client-js's build installs.
   */
  static Optional<Path> buf() {
    String named = System.getenv("PLAYLINE_BUF");
    if (named != null && !named.isBlank()) {
      return Optional.of(Path.of(named));
    }
    return Stream.of(ROOT.resolve(".ci/tools/node_modules/.bin/buf"), onPath("buf").orElse(null),
            ROOT.resolve("client-js/node_modules/.bin/buf"))
        .filter(p -> p != null && Files.isExecutable(p)).findFirst();
  }

  private static Optional<Path> onPath(String command) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      Path candidate = Path.of(dir.isEmpty() ? "." : dir, command);
      if (Files.isExecutable(candidate)) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }
}
