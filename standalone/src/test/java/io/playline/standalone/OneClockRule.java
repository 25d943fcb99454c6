package io.playline.standalone;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.assignableTo;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.core.domain.AccessTarget;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import io.playline.testing.MachineClockReads;
import io.playline.time.Time;
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
    return MachineClockReads.none(description, target -> schedules && schedulesOnItsOwn(target));
  }

  private static boolean schedulesOnItsOwn(AccessTarget target) {
    return target.getName().startsWith("schedule")
        && target.getOwner().isAssignableTo(ScheduledExecutorService.class);
  }
}
