package io.playline.standalone;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.assignableTo;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.core.domain.AccessTarget;
import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import io.playline.time.Time;
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
import java.util.concurrent.ScheduledExecutorService;

/**
 * The one-clock rule: the given packages read the time and schedule only through a {@link Time}
 * (the one they are given, or {@link Time#SYSTEM} where nothing can hand them one): no {@code
 * System.nanoTime}/{@code currentTimeMillis}, no {@code now()} of {@code Instant}, {@code LocalDate},
 * {@code LocalDateTime}, {@code ZonedDateTime} or the other {@code java.time} dates and times (but
 * {@code now(Clock)} of a given clock), no {@code new Date()}, no {@code Clock.system*}, called or
 * passed as a method reference, and no executor's own {@code
 * schedule*}. Only the implementations of {@code Time} read the machine.
 *
 * <p>Public, and shipped in this module's test jar, because the modules built on this one (the
 * topology, the bench) are not on {@link ArchitectureTest}'s classpath and check their own packages
 * with it.
 */
public final class OneClockRule {
  /** Classes whose static methods read the machine's clock. */
  private static final List<Class<?>> CLOCKS = List.of(System.class, Instant.class, LocalDate.class,
      LocalDateTime.class, ZonedDateTime.class, OffsetDateTime.class, LocalTime.class, OffsetTime.class, Year.class,
      YearMonth.class, MonthDay.class, Clock.class);
  private static final Set<String> READS = Set.of("nanoTime", "currentTimeMillis", "now", "systemUTC",
      "systemDefaultZone", "system");

  private OneClockRule() {}

  /** The rule on the classes in {@code packages} (ArchUnit's package identifiers, e.g. {@code "io.playline.node.."}). */
  public static ArchRule readTheTimeAndScheduleOnlyThroughTime(String... packages) {
    return rule(packages, true);
  }

  /**
   * The rule's clock reads alone, for code that paces real load on an executor's own fixed-rate
   * timer (the bench), which {@code Time} does not offer.
   */
  public static ArchRule readTheTimeOnlyThroughTime(String... packages) {
    return rule(packages, false);
  }

  private static ArchRule rule(String[] packages, boolean schedules) {
    return classes().that().resideInAnyPackage(packages).and(not(assignableTo(Time.class)))
        .should(condition(schedules))
        .because("the process's Time is the one clock: tests move a manual one instead of waiting");
  }

  private static ArchCondition<JavaClass> condition(boolean schedules) {
    String description = schedules ? "read the time and schedule only through Time" : "read the time only through Time";
    return new ArchCondition<>(description) {
      @Override
      public void check(JavaClass c, ConditionEvents events) {
        // Calls, and method references (System::nanoTime handed on as a LongSupplier).
        Set<JavaAccess<?>> accesses = new LinkedHashSet<>(c.getAccessesFromSelf());
        accesses.addAll(c.getCodeUnitReferencesFromSelf());
        for (JavaAccess<?> access : accesses) {
          AccessTarget target = access.getTarget();
          if (readsTheMachinesClock(target) || schedules && schedulesOnItsOwn(target)) {
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

  private static boolean schedulesOnItsOwn(AccessTarget target) {
    return target.getName().startsWith("schedule")
        && target.getOwner().isAssignableTo(ScheduledExecutorService.class);
  }
}
