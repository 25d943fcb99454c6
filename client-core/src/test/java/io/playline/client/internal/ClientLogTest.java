package io.playline.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Which logger the SDK uses is decided by what the app's classpath holds, so each case runs a child
 * JVM on exactly the jars an app would have.
 */
class ClientLogTest {

  @Test
  void withoutSlf4jTheSdkLogsThroughJavaUtilLogging() throws Exception {
    String err = runProbe(ourClasses());

    assertThat(err).contains("WARNING: probe 7 failed").contains("java.lang.IllegalStateException: boom")
        .doesNotContain("SLF4J");
  }

  @Test
  void slf4jApiWithoutAProviderPrintsNoSlf4jWarning() throws Exception {
    String err = runProbe(ourClasses() + File.pathSeparator + jar("slf4j-api"));

    assertThat(err).contains("WARNING: probe 7 failed").doesNotContain("SLF4J");
  }

  @Test
  void withAnSlf4jProviderTheSdkLogsThroughSlf4j() throws Exception {
    String err = runProbe(ourClasses() + File.pathSeparator + jar("slf4j-api") + File.pathSeparator + jar("slf4j-simple"));

    assertThat(err).contains("WARN io.playline.client.internal.ClientLogTest$Probe - probe 7 failed")
        .contains("java.lang.IllegalStateException: boom").doesNotContain("WARNING:");
  }

  @Test
  void formatsLikeSlf4j() {
    Object[] args = {7, "x", new IllegalStateException("boom")};
    assertThat(ClientLog.format("a {} b {} c", args)).isEqualTo("a 7 b x c");
    assertThat(ClientLog.cause("a {} b {} c", args)).hasMessage("boom");
    assertThat(ClientLog.cause("a {} b {} c {}", args)).isNull();
    assertThat(ClientLog.format("{} {}", new Object[] {1})).isEqualTo("1 {}");
  }

  /** The app: logs one warning with a cause through the SDK's log. */
  public static final class Probe {
    public static void main(String[] args) {
      ClientLog.of(Probe.class).warn("probe {} failed", 7, new IllegalStateException("boom"));
    }
  }

  private static String runProbe(String classpath) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process p = new ProcessBuilder(java, "-cp", classpath, Probe.class.getName()).redirectErrorStream(true).start();
    byte[] out = p.getInputStream().readAllBytes();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).isZero();
    return new String(out, StandardCharsets.UTF_8);
  }

  /** client-core's classes and test classes, nothing else of the test classpath. */
  private static String ourClasses() {
    return entries().stream().filter(e -> !e.endsWith(".jar")).collect(Collectors.joining(File.pathSeparator));
  }

  private static String jar(String artifactId) {
    List<String> found = new ArrayList<>();
    for (String e : entries()) {
      if (new File(e).getName().matches(artifactId + "-\\d.*\\.jar")) {
        found.add(e);
      }
    }
    assertThat(found).as(artifactId + " on the test classpath").hasSize(1);
    return found.get(0);
  }

  private static List<String> entries() {
    String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    return Arrays.asList(cp.split(File.pathSeparator));
  }
}
