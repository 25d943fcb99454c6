package io.playline.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileFlagStoreTest {
  @TempDir
  Path dir;

  @Test
  void datesSurviveReopeningAndOnlyTheFileRemains() throws Exception {
    Path file = dir.resolve("sub/flags.txt");
    FileFlagStore store = FileFlagStore.open(file);
    assertThat(store.load(7)).isEmpty();
    store.store(7, "2025-03-01");
    store.store(8, "2025-03-02");
    store.store(7, "2025-03-03");
    FileFlagStore reopened = FileFlagStore.open(file);
    assertThat(reopened.load(7)).isEqualTo("2025-03-03");
    assertThat(reopened.load(8)).isEqualTo("2025-03-02");
    try (Stream<Path> files = Files.list(file.getParent())) {
      assertThat(files).containsExactly(file); // no temporary file left behind
    }
  }

  @Test
  void malformedLinesAreSkippedAndOnlyRecentUsersAreKept() throws Exception {
    Path file = dir.resolve("flags.txt");
    Files.writeString(file, "garbage\n5=2025-01-01\n6=not-a-date\n", StandardCharsets.UTF_8);
    FileFlagStore store = FileFlagStore.open(file);
    assertThat(store.load(5)).isEqualTo("2025-01-01");
    assertThat(store.load(6)).isEmpty();
    for (long uid = 100; uid < 100 + FileFlagStore.MAX_USERS; uid++) {
      store.store(uid, "2025-01-02");
    }
    FileFlagStore reopened = FileFlagStore.open(file);
    assertThat(reopened.load(5)).as("the least recently stored user is evicted").isEmpty();
    assertThat(reopened.load(100 + FileFlagStore.MAX_USERS - 1)).isEqualTo("2025-01-02");
  }
}
