package io.playline.embedded;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import redis.embedded.core.ExecutableProvider;
import redis.embedded.model.OsArchitecture;

/**
 * Finds the {@code redis-server} executable to run: the system one on {@code PATH}, else the one
 * bundled in the {@code com.github.codemonstur:embedded-redis} jar (Redis 6.2).
 */
final class RedisBinary {

  private static final String EXECUTABLE = "redis-server";

  private RedisBinary() {}

  /** Returns the system {@code redis-server} if on {@code PATH}, else the bundled one. */
  static Path locate(Path extractDir) throws IOException {
    return locate(extractDir, System.getenv("PATH"));
  }

  /** Returns the first {@code redis-server} on {@code searchPath}, else the bundled one. */
  static Path locate(Path extractDir, @Nullable String searchPath) throws IOException {
    Optional<Path> system = onPath(EXECUTABLE, searchPath);
    return system.isPresent() ? system.get() : bundled(extractDir);
  }

  /** Returns the first executable {@code redis-server} on {@code PATH}, if any. */
  static Optional<Path> onPath() {
    return onPath(EXECUTABLE, System.getenv("PATH"));
  }

  /** Returns the first executable file named {@code executable} in the directories of {@code path}, if any. */
  static Optional<Path> onPath(String executable, @Nullable String path) {
    if (path == null) {
      return Optional.empty();
    }
    for (String dir : path.split(Pattern.quote(File.pathSeparator))) {
      if (dir.isEmpty()) {
        continue;
      }
      Path candidate = Path.of(dir, executable);
      if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }

  /**
   * Extracts the bundled {@code redis-server} for this OS and architecture into {@code
   * extractDir/bin} (once; an existing extraction is reused) and returns its path.
   */
  static Path bundled(Path extractDir) throws IOException {
    String resource = bundledResourceName();
    Path target = extractDir.resolve("bin").resolve(resource.substring(resource.lastIndexOf('/') + 1));
    if (Files.isRegularFile(target) && Files.isExecutable(target)) {
      return target;
    }
    Files.createDirectories(target.getParent());
    // Write beside the target and move it in atomically: a half-written file is never run.
    Path partial = Files.createTempFile(target.getParent(), EXECUTABLE, ".partial");
    try (InputStream in = ExecutableProvider.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IOException("embedded-redis jar has no resource " + resource);
      }
      Files.copy(in, partial, StandardCopyOption.REPLACE_EXISTING);
      Files.setPosixFilePermissions(partial, PosixFilePermissions.fromString("rwxr-xr-x"));
      Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } finally {
      Files.deleteIfExists(partial);
    }
    return target;
  }

  private static String bundledResourceName() throws IOException {
    String resource;
    try {
      resource = ExecutableProvider.newProvidedVersionsMap().get(OsArchitecture.detectOSandArchitecture());
    } catch (RuntimeException e) {
      throw new IOException("embedded-redis cannot detect this OS/architecture: " + e, e);
    }
    if (resource == null) {
      throw new IOException("embedded-redis bundles no redis-server for "
          + System.getProperty("os.name") + "/" + System.getProperty("os.arch"));
    }
    return resource;
  }
}
