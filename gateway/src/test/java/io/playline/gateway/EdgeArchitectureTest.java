package io.playline.gateway;

import static com.tngtech.archunit.base.DescribedPredicate.describe;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaMethodCall;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZonedDateTime;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.Test;

/**
 * The player edge reads the time and schedules its timeouts only through the node's {@code Time}
 * ({@code io.playline.time.Time}), so every deadline, expiry and budget of a connection can be
 * tested on a manual clock. Checked on the compiled classes: a new {@code System.nanoTime()} or an
 * executor's own {@code schedule} in these packages fails the build.
 */
class EdgeArchitectureTest {
  /** The packages that hold a player connection's lifecycle: transports, session, heartbeats. */
  private static final String[] EDGE = {
      "io.playline.gateway.ws", "io.playline.gateway.grpc", "io.playline.gateway.session",
      "io.playline.gateway.heartbeat"};

  private static final Set<String> NOW = Set.of("now", "systemUTC", "systemDefaultZone", "nanoTime",
      "currentTimeMillis");

  @Test
  void theEdgeReadsTimeAndSchedulesOnlyThroughTheNodesTime() {
    JavaClasses edge = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages(EDGE);
    noClasses().should().callMethodWhere(describe("a read of the machine's clock (System.nanoTime, "
        + "System.currentTimeMillis, Instant.now, Clock.systemUTC ...)", EdgeArchitectureTest::readsTheClock))
        .orShould().callMethodWhere(describe("an executor's own schedule (use Time#schedule)",
            EdgeArchitectureTest::schedulesOnItsOwn))
        .because("the node's Time is the one clock: tests move a manual one instead of waiting")
        .check(edge);
  }

  private static boolean readsTheClock(JavaMethodCall call) {
    var target = call.getTarget();
    String name = target.getName();
    if (!NOW.contains(name)) {
      return false;
    }
    var owner = target.getOwner();
    return owner.isEquivalentTo(System.class) || owner.isEquivalentTo(Instant.class)
        || owner.isEquivalentTo(Clock.class) || owner.isEquivalentTo(LocalDate.class)
        || owner.isEquivalentTo(LocalDateTime.class) || owner.isEquivalentTo(ZonedDateTime.class);
  }

  private static boolean schedulesOnItsOwn(JavaMethodCall call) {
    var target = call.getTarget();
    return target.getName().startsWith("schedule") && target.getOwner().isAssignableTo(ScheduledExecutorService.class);
  }
}
