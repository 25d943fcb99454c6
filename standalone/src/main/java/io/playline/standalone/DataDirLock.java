package io.playline.standalone;

import io.playline.roles.StartupException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * An exclusive OS file lock on {@code <data dir>/playline.lock}, so a second standalone process on
 * the same data dir fails at once with a clear message instead of corrupting data or clashing on
 * ports. The lock dies with the process, so a kill -9 leaves no stale lock behind.
 */
final class DataDirLock implements AutoCloseable {
  private final FileChannel channel;
  private final FileLock lock;

  private DataDirLock(FileChannel channel, FileLock lock) {
    this.channel = channel;
    this.lock = lock;
  }

  static DataDirLock acquire(Path dataDir) {
    Path file = dataDir.resolve("playline.lock");
    try {
      Files.createDirectories(dataDir);
      FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
          StandardOpenOption.WRITE);
      FileLock lock;
      try {
        lock = channel.tryLock();
      } catch (OverlappingFileLockException e) {
        lock = null;
      }
      if (lock == null) {
        String holder = new String(Files.readAllBytes(file), StandardCharsets.UTF_8).trim();
        channel.close();
        throw new StartupException("Playline is already running on data dir " + dataDir
            + (holder.isEmpty() ? "" : " (pid " + holder + ")")
            + "; stop it first, or set PLAYLINE_DATA_DIR to another directory");
      }
      channel.truncate(0);
      channel.write(ByteBuffer.wrap(Long.toString(ProcessHandle.current().pid()).getBytes(StandardCharsets.UTF_8)));
      channel.force(false);
      return new DataDirLock(channel, lock);
    } catch (IOException e) {
      throw new StartupException("cannot lock data dir " + dataDir + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    try {
      lock.release();
      channel.close();
    } catch (IOException ignored) {
      // The OS drops the lock with the process anyway.
    }
  }
}
