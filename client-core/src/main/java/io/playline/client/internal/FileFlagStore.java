package io.playline.client.internal;

import io.playline.client.FlagStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@link FlagStore} in a small text file, one {@code uid=YYYY-MM-DD} line per user (the most
 * recent {@value #MAX_USERS} users), so the first-today echo survives an app restart. Read once
 * when opened; every change rewrites the file atomically (write a sibling temporary file, then
 * rename over), so a crash leaves the old or the new content, never half of it. A failed write is
 * logged and kept in memory: at worst the gateway checks Redis once more. Thread-safe
 * (synchronized; writes happen about once a day per user).
 */
public final class FileFlagStore implements FlagStore {
  private static final ClientLog log = ClientLog.of(FileFlagStore.class);
  static final int MAX_USERS = 32;
  private static final Pattern LINE = Pattern.compile("(\\d{1,19})=(\\d{4}-\\d{2}-\\d{2})");

  private final Path file;
  /** Access-ordered by store: the eldest entry is the user stored longest ago. */
  private final LinkedHashMap<Long, String> dates = new LinkedHashMap<>();

  private FileFlagStore(Path file) {
    this.file = file;
  }

  /** Opens {@code file}, reading it if it exists; malformed lines are skipped. */
  public static FileFlagStore open(Path file) {
    FileFlagStore store = new FileFlagStore(file.toAbsolutePath());
    try {
      for (String line : Files.readAllLines(store.file, StandardCharsets.UTF_8)) {
        Matcher m = LINE.matcher(line.trim());
        if (m.matches()) {
          store.dates.put(Long.parseLong(m.group(1)), m.group(2));
        }
      }
    } catch (NoSuchFileException e) {
      // A first run: nothing stored yet.
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read flag store " + store.file, e);
    }
    return store;
  }

  @Override
  public synchronized String load(long uid) {
    return dates.getOrDefault(uid, "");
  }

  @Override
  public synchronized void store(long uid, String flagDate) {
    if (flagDate.equals(dates.get(uid))) {
      return;
    }
    dates.remove(uid);
    dates.put(uid, flagDate);
    while (dates.size() > MAX_USERS) {
      dates.remove(dates.keySet().iterator().next());
    }
    try {
      write();
    } catch (IOException e) {
      log.warn("Cannot write flag store {}: {}", file, e.toString());
    }
  }

  private void write() throws IOException {
    List<String> lines = new ArrayList<>(dates.size());
    for (Map.Entry<Long, String> e : dates.entrySet()) {
      lines.add(e.getKey() + "=" + e.getValue());
    }
    Path dir = file.getParent();
    if (dir != null) {
      Files.createDirectories(dir);
    }
    Path tmp = Files.createTempFile(dir == null ? Paths.get(".") : dir, file.getFileName().toString(), ".tmp");
    try {
      byte[] content = (String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8);
      try (FileChannel out = FileChannel.open(tmp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
        ByteBuffer buf = ByteBuffer.wrap(content);
        while (buf.hasRemaining()) {
          out.write(buf);
        }
        out.force(true); // the rename must never publish a file whose bytes are not on disk yet
      }
      try {
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Files.deleteIfExists(tmp);
    }
  }
}
