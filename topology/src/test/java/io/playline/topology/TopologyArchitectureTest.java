package io.playline.topology;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.playline.standalone.OneClockRule;
import org.junit.jupiter.api.Test;

/**
 * The topology reads the time only through {@code Time}, as the rest of the project: the standalone
 * module's {@code ArchitectureTest} holds the other modules to {@link OneClockRule}; the topology,
 * built on standalone, is not on its classpath and checks its own main classes here.
 */
class TopologyArchitectureTest {
  @Test
  void readsTheTimeAndSchedulesOnlyThroughTime() {
    OneClockRule.readTheTimeAndScheduleOnlyThroughTime("io.playline.topology..")
        .check(new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.playline.topology"));
  }
}
