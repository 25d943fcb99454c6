package io.playline.standalone;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
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
   * Within a module, the subpackages form a one-way graph: {@code gateway/session} uses {@code
   * heartbeat}, {@code push}, {@code stream} and {@code budget}, none of which uses it back.
   */
  @Test
  void noCycleBetweenTheSubpackagesOfAModule() {
    slices().matching("io.playline.(*).(*)..").namingSlices("$1.$2").should().beFreeOfCycles().check(all);
  }

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
