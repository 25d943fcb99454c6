package io.playline.standalone;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
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
   * root holds the assembly that uses everything ({@code GatewayNode}, {@code HistoryCore}, {@code
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
   * A connection's identity and transport ({@code gateway/stream}) and the per-user budgets
   * ({@code gateway/budget}) are what the session, the heartbeat step and push share: they use no
   * other package of the edge. (Which module may use which is the Maven build's to enforce: a
   * module's classes do not compile against one its POM does not list.)
   */
  @Test
  void theEdgesSharedPiecesUseNoOtherPartOfTheEdge() {
    noClasses().that().resideInAnyPackage("io.playline.gateway.stream..", "io.playline.gateway.budget..")
        .should().dependOnClassesThat().resideInAnyPackage("io.playline.gateway", "io.playline.gateway.session..",
            "io.playline.gateway.heartbeat..", "io.playline.gateway.push..", "io.playline.gateway.ws..",
            "io.playline.gateway.grpc..", "io.playline.gateway.config..")
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
