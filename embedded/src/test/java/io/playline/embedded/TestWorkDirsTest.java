package io.playline.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class TestWorkDirsTest {

  @Test
  void freshDirLivesUnderTheConfiguredBaseAndStartsEmpty() throws IOException {
    Path dir = TestWorkDirs.freshDir("work-dirs-probe");
    Files.createDirectories(dir.resolve("left/over"));
    Files.writeString(dir.resolve("left/over/file"), "from a previous run");

    assertThat(TestWorkDirs.freshDir("work-dirs-probe")).isEqualTo(dir).isEmptyDirectory();
    String configured = System.getProperty(TestWorkDirs.PROPERTY);
    if (configured != null) {
      assertThat(dir.getParent()).isEqualTo(Path.of(configured).toAbsolutePath());
    }
  }

  @Test
  void freshDirRejectsPathsThatEscapeTheBase() {
    assertThatThrownBy(() -> TestWorkDirs.freshDir("../elsewhere"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
