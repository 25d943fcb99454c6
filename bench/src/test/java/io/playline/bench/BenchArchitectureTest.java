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
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The bench's packages form a one-way graph, its root package included, checked on its main
 * classes (the JMH benchmarks too): the root ({@link BenchCli} and the load scenarios it runs)
 * uses the subpackages and none uses it back, and what the commands share sits in {@code common/},
 * which uses no other bench package. The standalone module's {@code ArchitectureTest} holds the
 * other modules to the same rule; the bench, a leaf, is not on its classpath.
 */
class BenchArchitectureTest {
  private static final String ROOT = "io.playline.bench";

  private static JavaClasses bench;

  @BeforeAll
  static void importTheBench() {
    bench = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages(ROOT);
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
   * The root package is the slice {@code bench}; each subpackage, with anything below it, a slice
   * of its own ({@code bench.reads}, {@code bench.common}, …).
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
      return SliceIdentifier.of("bench." + name.substring(ROOT.length() + 1).split("\\.")[0]);
    }

    @Override
    public String getDescription() {
      return "the bench's root package and each of its subpackages";
    }
  };
}
