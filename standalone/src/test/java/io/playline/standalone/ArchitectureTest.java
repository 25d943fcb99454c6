package io.playline.standalone;

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
 * The module and package structure {@code docs/architecture.md} draws, checked on every main
 * class of every module (this module's test classpath holds them all), so a wrong-way import or a
 * cycle fails the build instead of waiting for a review.
 */
class ArchitectureTest {
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
}
