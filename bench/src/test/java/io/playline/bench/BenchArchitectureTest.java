package io.playline.bench;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import io.playline.standalone.OneClockRule;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The bench's packages form a one-way graph, its root package included, checked on its main
 * classes (the JMH benchmarks too): the root (the command line, {@link BenchCli}) uses the
 * subpackages and none uses it back; each benchmark has a package of its own ({@code heartbeats/},
 * {@code reads/}, {@code heavy/}, {@code hostile/}) that uses no other benchmark's; and what the
 * commands share sits in {@code common/}, which uses no other bench package. The standalone
 * module's {@code ArchitectureTest} holds the other modules to the same rule; the bench, a leaf, is
 * not on its classpath. The bench also reads the time only through {@code Time} ({@link
 * OneClockRule}), the machine's: it measures real time.
 */
class BenchArchitectureTest {
  private static final String ROOT = "io.playline.bench";
  /** A package per benchmark, each with anything below it. */
  private static final List<String> BENCHMARKS = List.of("heartbeats", "reads", "heavy", "hostile");

  private static JavaClasses bench;

  @BeforeAll
  static void importTheBench() {
    // Not JMH's generated harness: it times the benchmarks with the machine's clock, as JMH must.
    bench = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .withImportOption(location -> !location.contains("/jmh_generated/")).importPackages(ROOT);
  }

  @Test
  void noCycleBetweenTheBenchsPackagesItsRootPackageIncluded() {
    slices().assignedFrom(BENCH_PACKAGES).should().beFreeOfCycles().check(bench);
  }

  @Test
  void whatTheCommandsShareUsesNoOtherPartOfTheBench() {
    noClasses().that().resideInAPackage(ROOT + ".common..")
        .should().dependOnClassesThat(resideInAPackage(ROOT + "..").and(not(resideInAPackage(ROOT + ".common.."))))
        .check(bench);
  }

  /**
   * A benchmark's package uses no other benchmark's: what two of them use sits in {@code load/},
   * {@code probe/} or {@code common/}.
   */
  @Test
  void noBenchmarkUsesAnother() {
    for (String benchmark : BENCHMARKS) {
      String[] others = BENCHMARKS.stream().filter(b -> !b.equals(benchmark)).map(b -> ROOT + "." + b + "..")
          .toArray(String[]::new);
      noClasses().that().resideInAPackage(ROOT + "." + benchmark + "..")
          .should().dependOnClassesThat().resideInAnyPackage(others).check(bench);
    }
  }

  /**
   * The bench reads the time only through {@code Time} (its {@code Time.SYSTEM}: it measures the
   * machine's real time), as the rest of the project; it may pace load on an executor's own
   * fixed-rate timer, which {@code Time} does not offer.
   */
  @Test
  void readsTheTimeOnlyThroughTime() {
    OneClockRule.readTheTimeOnlyThroughTime(ROOT + "..").check(bench);
  }

  /**
   * The root package is the slice {@code bench}; every subpackage a slice of its own, a benchmark's
   * own subpackages too ({@code bench.reads}, {@code bench.heartbeats}, {@code
   * bench.heartbeats.report}, …): a benchmark's package uses its subpackages, never the other way.
   */
  private static final SliceAssignment BENCH_PACKAGES = new SliceAssignment() {
    @Override
    public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
      String name = javaClass.getPackageName();
      if (name.equals(ROOT)) {
        return SliceIdentifier.of("bench");
      }
      if (!name.startsWith(ROOT + ".")) {
        return SliceIdentifier.ignore();
      }
      return SliceIdentifier.of("bench." + name.substring(ROOT.length() + 1));
    }

    @Override
    public String getDescription() {
      return "the bench's root package and each of its subpackages";
    }
  };
}
