package io.playline.standalone;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import io.playline.time.Time;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The module and package structure {@code docs/architecture.md} draws, checked on every main
 * class of every module (this module's test classpath holds them all), so a wrong-way import or a
 * cycle fails the build instead of waiting for a review.
 *
 * <p>It also holds the server code to one clock ({@link #serverCodeReadsTheTimeAndSchedulesOnlyThroughTime}),
 * and the embedded servers and test infrastructure, which wait for real processes and so read the
 * system's, to the same {@code Time} ({@link #toolingReadsTheTimeAndSchedulesOnlyThroughTime}). It
 * leaves out, on purpose: the client SDKs ({@code io.playline.client}: {@code client-core} is Java 8
 * for Android and has a clock and loop seam of its own, which its tests drive, and client-sdk's
 * {@code ClientArchitectureTest} holds them to its one clock); and the bench
 * ({@code io.playline.bench}), which measures the machine's real time.
 */
class ArchitectureTest {
  /** The server modules' packages: the one clock rule's scope. */
  private static final String[] SERVER = {"io.playline.api..", "io.playline.gateway..", "io.playline.node..",
      "io.playline.core..", "io.playline.job..", "io.playline.roles..", "io.playline.standalone..",
      "io.playline.time.."};
  /**
   * The embedded servers and the test infrastructure: the one clock rule's too (the topology, built
   * on this module and so not on its classpath, checks itself with {@link OneClockRule}).
   */
  private static final String[] TOOLING = {"io.playline.embedded..", "io.playline.testing.."};

  private static JavaClasses all;

  @BeforeAll
  static void importAll() {
    // Test jars too are test code (embedded's, which the test infrastructure builds on, is on the classpath).
    all = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .withImportOption(location -> !location.contains("-tests.jar")).importPackages("io.playline");
  }

  /**
   * Within a module, the packages form a one-way graph, the module's root package included: the
   * root holds the assembly that uses everything ({@code PlayerEdge}, {@code HistoryCore}, {@code
   * PlaylineJob}, {@code ApiServer}), and no subpackage uses it back; what the subpackages share
   * (typed config, settings, meters) lives in a subpackage of its own ({@code gateway/config},
   * {@code core/config}, {@code job/config}, {@code job/metrics}, {@code api/config}). Among the
   * subpackages, {@code gateway/session} uses {@code heartbeat}, {@code push}, {@code stream} and
   * {@code budget}, none of which uses it back. The player SDK's public package and its {@code
   * internal} implementation count as one ({@code io.playline.client}): they ship as one API, and
   * {@code internal} reports through the API's own types.
   */
  @Test
  void noCycleBetweenThePackagesOfAModuleItsRootPackageIncluded() {
    slices().assignedFrom(MODULE_PACKAGES).should().beFreeOfCycles().check(all);
  }

  /**
   * One slice per package of a module: {@code io.playline.gateway} is the slice {@code gateway},
   * {@code io.playline.gateway.session} and anything below it the slice {@code gateway.session}
   * (the SDK's {@code io.playline.client.internal} is the slice {@code client}).
   */
  private static final SliceAssignment MODULE_PACKAGES = new SliceAssignment() {
    @Override
    public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
      String[] parts = javaClass.getPackageName().split("\\.");
      if (parts.length < 3 || !parts[0].equals("io") || !parts[1].equals("playline")) {
        return SliceIdentifier.ignore();
      }
      boolean root = parts.length == 3 || parts[2].equals("client") && parts[3].equals("internal");
      return root ? SliceIdentifier.of(parts[2]) : SliceIdentifier.of(parts[2] + "." + parts[3]);
    }

    @Override
    public String getDescription() {
      return "each module's root package and each of its subpackages";
    }
  };

  /**
   * The modules depend on each other only the way the module diagram of {@code docs/architecture.md}
   * points: {@code time} on nothing; the history core on the protocol and time; {@code node} on the
   * core; the player edge ({@code gateway}) and the internal API ({@code api}) on {@code node}, never
   * on each other; the job on the core, not on {@code node}; the roles on the edge, the API and the
   * job; the standalone on everything. Maven alone does not hold this: a module compiles against
   * whatever its dependencies bring along, so {@code roles} could import an embedded server, or the
   * job {@code node}, through another module's dependency. The embedded servers and the test helpers
   * depend on no serving module; the SDKs ({@code io.playline.client}) on the protocol alone.
   */
  @Test
  void modulesDependOnlyTheWayTheModuleDiagramPoints() {
    layeredArchitecture().consideringOnlyDependenciesInLayers()
        .layer("time").definedBy("io.playline.time..")
        .layer("proto").definedBy("io.playline.proto..")
        .layer("core").definedBy("io.playline.core..")
        .layer("node").definedBy("io.playline.node..")
        .layer("gateway").definedBy("io.playline.gateway..")
        .layer("api").definedBy("io.playline.api..")
        .layer("job").definedBy("io.playline.job..")
        .layer("roles").definedBy("io.playline.roles..")
        .layer("embedded").definedBy("io.playline.embedded..")
        .layer("testing").definedBy("io.playline.testing..")
        .layer("client").definedBy("io.playline.client..")
        .layer("standalone").definedBy("io.playline.standalone..")
        .whereLayer("standalone").mayNotBeAccessedByAnyLayer()
        .whereLayer("roles").mayOnlyBeAccessedByLayers("standalone")
        .whereLayer("gateway").mayOnlyBeAccessedByLayers("roles", "standalone")
        .whereLayer("api").mayOnlyBeAccessedByLayers("roles", "standalone")
        .whereLayer("job").mayOnlyBeAccessedByLayers("roles", "standalone")
        .whereLayer("node").mayOnlyBeAccessedByLayers("gateway", "api", "roles", "standalone")
        .whereLayer("core").mayOnlyBeAccessedByLayers("node", "gateway", "api", "job", "roles", "standalone")
        .whereLayer("embedded").mayOnlyBeAccessedByLayers("testing", "standalone")
        .whereLayer("testing").mayNotBeAccessedByAnyLayer()
        .whereLayer("client").mayOnlyBeAccessedByLayers("standalone")
        .whereLayer("proto").mayOnlyBeAccessedByLayers("core", "node", "gateway", "api", "job", "roles", "testing",
            "client", "standalone")
        .check(all);
  }

  /**
   * The player edge's packages depend on each other the way the package diagram of {@code
   * docs/architecture.md} draws a frame's way through them: the transports ({@code ws}, {@code
   * grpc}, neither using the other) hand frames to the {@code session}, which uses the {@code
   * heartbeat} step and {@code push}; a connection's identity and transport ({@code stream}) and the
   * per-user budgets ({@code budget}) are what they all share and use no other part of the edge; the
   * edge's settings ({@code config}) are read by the transports and the session; the root package
   * assembles them all and nothing uses it.
   */
  @Test
  void theEdgesPackagesDependTheWayAFrameTravels() {
    layeredArchitecture().consideringOnlyDependenciesInLayers()
        .layer("root").definedBy("io.playline.gateway")
        .layer("ws").definedBy("io.playline.gateway.ws..")
        .layer("grpc").definedBy("io.playline.gateway.grpc..")
        .layer("session").definedBy("io.playline.gateway.session..")
        .layer("heartbeat").definedBy("io.playline.gateway.heartbeat..")
        .layer("push").definedBy("io.playline.gateway.push..")
        .layer("shared").definedBy("io.playline.gateway.stream..", "io.playline.gateway.budget..")
        .layer("config").definedBy("io.playline.gateway.config..")
        .whereLayer("root").mayNotBeAccessedByAnyLayer()
        .whereLayer("ws").mayOnlyBeAccessedByLayers("root")
        .whereLayer("grpc").mayOnlyBeAccessedByLayers("root")
        .whereLayer("session").mayOnlyBeAccessedByLayers("root", "ws", "grpc")
        .whereLayer("heartbeat").mayOnlyBeAccessedByLayers("root", "ws", "grpc", "session")
        .whereLayer("push").mayOnlyBeAccessedByLayers("root", "session")
        .whereLayer("config").mayOnlyBeAccessedByLayers("root", "ws", "grpc", "session")
        .check(all);
  }

  /**
   * Server code reads the time and schedules only through the {@code Time} it is given (a node's,
   * a job's, a role's), so a test can hand it a manual time and move it instead of waiting
   * ({@link OneClockRule} says what it may not call).
   */
  @Test
  void serverCodeReadsTheTimeAndSchedulesOnlyThroughTime() {
    OneClockRule.readTheTimeAndScheduleOnlyThroughTime(SERVER).check(all);
  }

  /**
   * The embedded servers and the test infrastructure wait for real processes, so they read {@link
   * Time#SYSTEM}; but through {@code Time} too, so every clock read of the project is one to find
   * and a helper can take a manual time the day a test needs it to.
   */
  @Test
  void toolingReadsTheTimeAndSchedulesOnlyThroughTime() {
    OneClockRule.readTheTimeAndScheduleOnlyThroughTime(TOOLING).check(all);
  }
}
