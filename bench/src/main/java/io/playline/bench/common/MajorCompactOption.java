package io.playline.bench.common;

import picocli.CommandLine.Option;

/**
 * {@code --no-major-compact}: whether the history tables the bench wrote users into are flushed and
 * major-compacted before it reads them ({@link HistoryTables#majorCompact}), declared once for
 * {@code bench reads} and {@code bench heavy}.
 */
public final class MajorCompactOption {
  @Option(names = "--no-major-compact", negatable = true, description = "Do not flush and major-compact the history "
      + "tables after writing the users and before reading them (default: do, as HBase does on its own schedule, "
      + "so reads see HFiles, without the roll-up's delete markers).")
  boolean majorCompact = true;

  /** Whether to major-compact: yes unless {@code --no-major-compact}. */
  public boolean majorCompact() {
    return majorCompact;
  }
}
