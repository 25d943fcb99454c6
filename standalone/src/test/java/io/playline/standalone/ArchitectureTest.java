package io.playline.standalone;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.assignableTo;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.AccessTarget;
import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import io.playline.time.Time;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZonedDateTime;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The module and package structure {@code docs/architecture.md} draws, checked on every main
 * class of every module (this module's test classpath holds them all), so a wrong-way import or a
 * cycle fails the build instead of waiting for a review.
 *
 * <p>It also holds the server code to one clock: {@link #serverCodeReadsTheTimeAndSchedulesOnlyThroughTime}.
 * That rule leaves out, on purpose: the client SDKs ({@code io.playline.client}: {@code client-core}
 * is Java 8 for Android and has a clock and loop seam of its own, which its tests drive); the
 * embedded servers ({@code io.playline.embedded}) and the test infrastructure ({@code
 * io.playline.testing}), which wait for real processes to come up and go down; and the bench
 * ({@code io.playline.bench}), which measures the machine's real time.
 */
class ArchitectureTest {
  /** The server modules' packages: the one clock rule's scope. */
  private static final String[] SERVER = {"io.playline.api..", "io.playline.gateway..", "io.playline.node..",
      "io.playline.core..", "io.playline.job..", "io.playline.roles..", "io.playline.standalone..",
      "io.playline.time.."};
  /** Classes whose static methods read the machine's clock. */
  private static final List<Class<?>> CLOCKS = List.of(System.class, Instant.class, LocalDate.class,
      LocalDateTime.class, ZonedDateTime.class, Clock.class);
  private static final Set<String> READS = Set.of("nanoTime", "currentTimeMillis", "now", "systemUTC",
      "systemDefaultZone");

  private static JavaClasses all;

  @BeforeAll
  static void importAll() {
    all = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("io.playline");
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
   * a job's, a role's), so a test can hand it a manual time and move it instead of waiting: no
   * {@code System.nanoTime}/{@code currentTimeMillis}, no {@code now()} of {@code Instant}, {@code
   * LocalDate}, {@code LocalDateTime} or {@code ZonedDateTime} (but {@code now(Clock)} of a given
   * clock), no {@code Clock.system*}, called or passed as a method reference, and no executor's own
   * {@code schedule*}. Only the implementations of {@code Time} read the machine.
   */
  @Test
  void serverCodeReadsTheTimeAndSchedulesOnlyThroughTime() {
    classes().that().resideInAnyPackage(SERVER).and(not(assignableTo(Time.class)))
        .should(readTheTimeAndScheduleOnlyThroughTime())
        .because("the process's Time is the one clock: tests move a manual one instead of waiting")
        .check(all);
  }

  private static ArchCondition<JavaClass> readTheTimeAndScheduleOnlyThroughTime() {
    return new ArchCondition<>("read the time and schedule only through Time") {
      @Override
      public void check(JavaClass c, ConditionEvents events) {
        // Calls, and method references (System::nanoTime handed on as a LongSupplier).
        Set<JavaAccess<?>> accesses = new LinkedHashSet<>(c.getAccessesFromSelf());
        accesses.addAll(c.getCodeUnitReferencesFromSelf());
        for (JavaAccess<?> access : accesses) {
          AccessTarget target = access.getTarget();
          if (readsTheMachinesClock(target) || schedulesOnItsOwn(target)) {
            events.add(SimpleConditionEvent.violated(access, access.getDescription()));
          }
        }
      }
    };
  }

  private static boolean readsTheMachinesClock(AccessTarget target) {
    if (!READS.contains(target.getName()) || CLOCKS.stream().noneMatch(target.getOwner()::isEquivalentTo)) {
      return false;
    }
    // now(Clock) reads the clock it is given; now() and now(ZoneId) read the machine's.
    return !(target instanceof AccessTarget.CodeUnitAccessTarget unit)
        || unit.getRawParameterTypes().stream().noneMatch(t -> t.isEquivalentTo(Clock.class));
  }

  private static boolean schedulesOnItsOwn(AccessTarget target) {
    return target.getName().startsWith("schedule")
        && target.getOwner().isAssignableTo(ScheduledExecutorService.class);
  }
}
