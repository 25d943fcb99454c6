package io.playline.bench.load;

import io.playline.node.errors.Errors;
import io.playline.proto.v1.Error.Code;
import io.playline.time.Time;
import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;

/**
 * Counters of one generator (or the sum of several) at one moment, plus the ack latencies (µs)
 * recorded since the previous snapshot. Counters are cumulative; {@link #interval} is not.
 * Immutable except the histogram, which the owner of the snapshot may add to.
 *
 * @param nanos when it was taken ({@link Time#nanoTime()} of the taking process)
 * @param open connections authenticated and open
 * @param connectFailures connections that failed before authenticating
 * @param sent heartbeats sent
 * @param acked heartbeat acks received
 * @param skipped heartbeats due but not sent because the connection's window was full
 * @param errors Error frames received, indexed by code number
 * @param closes connections closed, by close code (WebSocket 4000 + code, gRPC status + 100, 0 local)
 * @param interval ack latencies in microseconds since the previous snapshot
 */
public record LoadSnapshot(long nanos, int open, long connectFailures, long sent, long acked, long skipped,
    long[] errors, Map<Integer, Long> closes, Histogram interval) {

  /** An empty snapshot, the identity of {@link #plus}. */
  public static LoadSnapshot empty() {
    return new LoadSnapshot(Time.SYSTEM.nanoTime(), 0, 0, 0, 0, 0, new long[LoadStats.MAX_CODE], Map.of(),
        newHistogram());
  }

  public static Histogram newHistogram() {
    return new Histogram(LoadStats.MAX_LATENCY_MICROS, 3);
  }

  /** The sum of two generators' snapshots (histograms added; the later time kept). */
  public LoadSnapshot plus(LoadSnapshot o) {
    long[] e = new long[Math.max(errors.length, o.errors.length)];
    for (int i = 0; i < e.length; i++) {
      e[i] = (i < errors.length ? errors[i] : 0) + (i < o.errors.length ? o.errors[i] : 0);
    }
    Map<Integer, Long> c = new HashMap<>(closes);
    o.closes.forEach((k, v) -> c.merge(k, v, Long::sum));
    Histogram h = newHistogram();
    h.add(interval);
    h.add(o.interval);
    return new LoadSnapshot(Math.max(nanos, o.nanos), open + o.open, connectFailures + o.connectFailures,
        sent + o.sent, acked + o.acked, skipped + o.skipped, e, Map.copyOf(c), h);
  }

  public long errorTotal() {
    long n = 0;
    for (long x : errors) {
      n += x;
    }
    return n;
  }

  /** Errors by code name, only the codes seen, e.g. {@code {RATE_LIMITED=3}}. */
  public Map<String, Long> errorsByName() {
    Map<String, Long> byName = new TreeMap<>();
    for (int i = 0; i < errors.length; i++) {
      if (errors[i] > 0) {
        Code code = Code.forNumber(i);
        byName.put(code == null ? "code_" + i : code.name(), errors[i]);
      }
    }
    return byName;
  }

  /** One line a child process prints and its parent parses back with {@link #decode}. */
  public String encode() {
    StringJoiner j = new StringJoiner(" ");
    j.add(Long.toString(nanos)).add(Integer.toString(open)).add(Long.toString(connectFailures))
        .add(Long.toString(sent)).add(Long.toString(acked)).add(Long.toString(skipped));
    StringJoiner e = new StringJoiner(",");
    for (long x : errors) {
      e.add(Long.toString(x));
    }
    j.add(e.toString());
    StringJoiner c = new StringJoiner(",");
    closes.forEach((k, v) -> c.add(k + ":" + v));
    j.add(closes.isEmpty() ? "-" : c.toString());
    ByteBuffer buf = ByteBuffer.allocate(interval.getNeededByteBufferCapacity());
    int n = interval.encodeIntoCompressedByteBuffer(buf);
    j.add(Base64.getEncoder().encodeToString(java.util.Arrays.copyOf(buf.array(), n)));
    return j.toString();
  }

  /** Parses {@link #encode}'s output. */
  public static LoadSnapshot decode(String line) {
    String[] f = line.trim().split(" ");
    if (f.length != 9) {
      throw new IllegalArgumentException("not a snapshot line: " + line);
    }
    String[] es = f[6].split(",");
    long[] errors = new long[es.length];
    for (int i = 0; i < es.length; i++) {
      errors[i] = Long.parseLong(es[i]);
    }
    Map<Integer, Long> closes = new HashMap<>();
    if (!f[7].equals("-")) {
      for (String kv : f[7].split(",")) {
        int colon = kv.indexOf(':');
        closes.put(Integer.parseInt(kv.substring(0, colon)), Long.parseLong(kv.substring(colon + 1)));
      }
    }
    Histogram h;
    try {
      h = Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(Base64.getDecoder().decode(f[8])), 0);
    } catch (DataFormatException e) {
      throw new IllegalArgumentException("bad histogram in snapshot line", e);
    }
    Histogram copy = newHistogram();
    copy.add(h);
    return new LoadSnapshot(Long.parseLong(f[0]), Integer.parseInt(f[1]), Long.parseLong(f[2]),
        Long.parseLong(f[3]), Long.parseLong(f[4]), Long.parseLong(f[5]), errors, Map.copyOf(closes), copy);
  }
}
