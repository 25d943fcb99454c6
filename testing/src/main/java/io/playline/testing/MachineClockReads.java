package io.playline.testing;

import com.tngtech.archunit.core.domain.AccessTarget;
import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
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
import java.util.function.Predicate;

/**
 * What counts as reading the machine's clock, for the one-clock architecture rules of the server
 * (the standalone module's {@code OneClockRule}) and of the client SDKs ({@code
 * ClientArchitectureTest}): {@code System.nanoTime}/{@code currentTimeMillis}, {@code now()} of
 * {@code Instant}, {@code LocalDate}, {@code LocalDateTime}, {@code ZonedDateTime} and the other
 * {@code java.time} dates and times (but {@code now(Clock)} of a given clock), {@code new Date()},
 * {@code Clock.system*}; called or passed as a method reference.
 */
public final class MachineClockReads {
  /** Classes whose static methods read the machine's clock. */
  private static final List<Class<?>> CLOCKS = List.of(System.class, Instant.class, LocalDate.class,
      LocalDateTime.class, ZonedDateTime.class, OffsetDateTime.class, LocalTime.class, OffsetTime.class, Year.class,
      YearMonth.class, MonthDay.class, Clock.class);
  private static final Set<String> READS = Set.of("nanoTime", "currentTimeMillis", "now", "systemUTC",
      "systemDefaultZone", "system");

  private MachineClockReads() {}

  /**
   * A condition violated by every access of a class that reads the machine's clock, or that
   * {@code alsoForbidden} matches (e.g. an executor's own {@code schedule*}).
   */
  public static ArchCondition<JavaClass> none(String description, Predicate<AccessTarget> alsoForbidden) {
    return new ArchCondition<>(description) {
      @Override
      public void check(JavaClass c, ConditionEvents events) {
        // Calls, and method references (System::nanoTime handed on as a LongSupplier).
        Set<JavaAccess<?>> accesses = new LinkedHashSet<>(c.getAccessesFromSelf());
        accesses.addAll(c.getCodeUnitReferencesFromSelf());
        for (JavaAccess<?> access : accesses) {
          AccessTarget target = access.getTarget();
          if (readsTheMachinesClock(target) || alsoForbidden.test(target)) {
            events.add(SimpleConditionEvent.violated(access, access.getDescription()));
          }
        }
      }
    };
  }

  /** Whether calling or referencing {@code target} reads the machine's clock. */
  public static boolean readsTheMachinesClock(AccessTarget target) {
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
