package io.playline.standalone.cli;

import io.playline.proto.v1.HistoryRecord;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.List;

/** Prints history records as an aligned table for people. */
final class RecordTable {
  private static final String FORMAT = "%-24s  %-8s  %12s  %6s  %10s  %10s  %-16s  %s%n";

  private RecordTable() {}

  static void print(PrintWriter out, List<HistoryRecord> records) {
    if (records.isEmpty()) {
      out.println("(no records)");
      return;
    }
    out.printf(FORMAT, "VIEWED", "BUSINESS", "OID", "SUB", "PROGRESS", "DURATION", "DEVICE", "PLATFORM");
    for (HistoryRecord r : records) {
      out.printf(FORMAT, Instant.ofEpochMilli(r.getViewTimeMs()), r.getBusiness(), r.getOid(), r.getSubId(),
          r.getProgressMs() == -1 ? "finished" : millis(r.getProgressMs()), millis(r.getDurationMs()),
          r.getDeviceId(), r.getPlatform());
    }
  }

  private static String millis(long ms) {
    long s = ms / 1000;
    return String.format("%d:%02d:%02d", s / 3600, (s / 60) % 60, s % 60);
  }
}
