package io.playline.client;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.equivalentTo;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.playline.client.internal.ExecutorLoop;
import io.playline.client.internal.NettyLoop;
import io.playline.client.internal.SystemClock;
import io.playline.client.okhttp.OkHttpPlaylineClientBuilder;
import io.playline.testing.MachineClockReads;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The client SDKs' one clock: their main classes ({@code client-core}, this module's, {@code
 * client-okhttp}'s, all on this module's test classpath) read the machine's clock only in {@link
 * SystemClock}, so the session takes its time from its {@code Loop}, which {@code client-core}'s
 * tests drive by hand. The server modules are held to the same rule by the standalone module's
 * {@code ArchitectureTest} with its {@code OneClockRule}, which {@code client-core}, Java 8 for
 * Android and without the server's {@code Time}, cannot use; this test checks the same calls
 * ({@link MachineClockReads}: no
 * {@code System.nanoTime}/{@code currentTimeMillis}, no {@code now()} of {@code Instant}, {@code
 * LocalDate}, {@code LocalDateTime}, {@code ZonedDateTime} or the other {@code java.time} dates
 * and times but {@code now(Clock)} of a given clock, no {@code new Date()}, no {@code
 * Clock.system*}, called or passed as a method reference). It leaves scheduling
 * alone: the transports may time a force-close on their own event loop.
 */
class ClientArchitectureTest {
  private static JavaClasses client;

  @BeforeAll
  static void importTheClient() {
    client = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .withImportOption(location -> !location.contains("-tests.jar")).importPackages("io.playline.client");
  }

  /** The import holds every client module's main classes, so the rule below is not checked on nothing. */
  @Test
  void theImportHoldsEveryClientModule() {
    assertThat(List.of(ExecutorLoop.class, NettyLoop.class, OkHttpPlaylineClientBuilder.class))
        .allSatisfy(c -> assertThat(client.contain(c)).as(c.getName()).isTrue());
  }

  @Test
  void readsTheMachinesClockOnlyInSystemClock() {
    classes().that(not(equivalentTo(SystemClock.class)))
        .should(MachineClockReads.none("read the machine's clock nowhere", target -> false))
        .because("SystemClock is the client's one clock: tests move a manual loop instead of waiting")
        .check(client);
  }
}
