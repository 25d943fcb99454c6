package io.playline.client;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.equivalentTo;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.AccessTarget;
import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import io.playline.client.internal.ExecutorLoop;
import io.playline.client.internal.NettyLoop;
import io.playline.client.internal.SystemClock;
import io.playline.client.okhttp.OkHttpPlaylineClientBuilder;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.MonthDay;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.Year;
import java.time.YearMonth;
import java.time.ZonedDateTime;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The client SDKs' one clock: their main classes ({@code client-core}, this module's, {@code
 * client-okhttp}'s, all on this module's test classpath) read the machine's clock only in {@link
 * SystemClock}, so the session takes its time from its {@code Loop}, which {@code client-core}'s
 * tests drive by hand. The server modules are held to the same rule by the standalone module's
 * {@code ArchitectureTest} with its {@code OneClockRule}, which {@code client-core}, Java 8 for
 * Android and without the server's {@code Time}, cannot use; this test checks the same calls (no
 * {@code System.nanoTime}/{@code currentTimeMillis}, no {@code now()} of {@code Instant}, {@code
 * LocalDate}, {@code LocalDateTime}, {@code ZonedDateTime} or the other {@code java.time} dates
 * and times but {@code now(Clock)} of a given clock, no {@code new Date()}, no {@code
 * Clock.system*}, called or passed as a method reference). It leaves scheduling
 * alone: the transports may time a force-close on their own event loop.
 */
class ClientArchitectureTest {
  /** Classes whose static methods read the machine's clock. */
  private static final List<Class<?>> CLOCKS = List.of(System.class, Instant.class, LocalDate.class,
      LocalDateTime.class, ZonedDateTime.class, OffsetDateTime.class, LocalTime.class, OffsetTime.class, Year.class,
      YearMonth.class, MonthDay.class, Clock.class);
  private static final Set<String> READS = Set.of("nanoTime", "currentTimeMillis", "now", "systemUTC",
      "systemDefaultZone", "system");

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
    classes().that(not(equivalentTo(SystemClock.class))).should(readTheMachinesClockNowhere())
        .because("SystemClock is the client's one clock: tests move a manual loop instead of waiting")
        .check(client);
  }

  private static ArchCondition<JavaClass> readTheMachinesClockNowhere() {
    return new ArchCondition<>("read the machine's clock nowhere") {
      @Override
      public void check(JavaClass c, ConditionEvents events) {
        // Calls, and method references (System::nanoTime handed on as a LongSupplier).
        Set<JavaAccess<?>> accesses = new LinkedHashSet<>(c.getAccessesFromSelf());
        accesses.addAll(c.getCodeUnitReferencesFromSelf());
        for (JavaAccess<?> access : accesses) {
          if (readsTheMachinesClock(access.getTarget())) {
            events.add(SimpleConditionEvent.violated(access, access.getDescription()));
          }
        }
      }
    };
  }

  private static boolean readsTheMachinesClock(AccessTarget target) {
    if (target.getOwner().isEquivalentTo(java.util.Date.class) && target.getName().equals("<init>")) {
      // new Date() reads the machine's clock; new Date(millis) does not.
      return target instanceof AccessTarget.CodeUnitAccessTarget unit && unit.getRawParameterTypes().isEmpty();
    }
    if (!READS.contains(target.getName()) || CLOCKS.stream().noneMatch(target.getOwner()::isEquivalentTo)) {
      return false;
    }
    // now(Clock) reads the clock it is given; now() and now(ZoneId) read the machine's.
    return !(target instanceof AccessTarget.CodeUnitAccessTarget unit)
        || unit.getRawParameterTypes().stream().noneMatch(t -> t.isEquivalentTo(Clock.class));
  }
}
