package io.playline.bench.hostile;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

/**
 * The lines the hostile bench and its attacker process ({@link AttackerMain}) exchange over the
 * child's standard input and output: one command or answer per line, fields separated by tabs.
 * The process says {@code ok} once up. Requests: {@code start <kinds> <length ms> <target>}, {@code snapshot}, {@code stop}, {@code
 * exit}; answers: {@code ok}, {@code error <message>}, or for a snapshot its count then one line
 * per attacker. Stateless.
 */
final class AttackWire {
  static final String START = "start";
  static final String SNAPSHOT = "snapshot";
  static final String STOP = "stop";
  static final String EXIT = "exit";
  static final String OK = "ok";
  static final String ERROR = "error";

  private AttackWire() {}

  /** {@code start} with its kinds, length and target, as one line. */
  static String start(List<AttackKind> kinds, Duration length, AttackTarget t) {
    StringJoiner k = new StringJoiner(",");
    kinds.forEach(x -> k.add(x.cliName()));
    return String.join("\t", START, k.toString(), Long.toString(length.toMillis()), target(t));
  }

  /** The kinds of a {@code start} line's fields (after the command). */
  static List<AttackKind> kinds(String field) {
    return field.isEmpty() ? List.of() : java.util.Arrays.stream(field.split(",")).map(AttackKind::parse).toList();
  }

  static String target(AttackTarget t) {
    return String.join("\t", t.websocket().toString(), t.grpc().getHostString(), Integer.toString(t.grpc().getPort()),
        t.admin().getHostString(), Integer.toString(t.admin().getPort()),
        Base64.getEncoder().encodeToString(t.secret().getBytes(StandardCharsets.UTF_8)), Long.toString(t.uidBase()),
        Integer.toString(t.connections()), Integer.toString(t.idleConnections()), Integer.toString(t.framesPerSecond()),
        Long.toString(t.slowlorisInterval().toMillis()), Long.toString(t.maxOperations()),
        Integer.toString(t.addressBlock()), t.shared() == null ? "-" : t.shared().getHostAddress());
  }

  /** The target in {@code f} from index {@code i} on (14 fields, as {@link #target} wrote them). */
  static AttackTarget target(String[] f, int i) throws UnknownHostException {
    if (f.length != i + 14) {
      throw new IllegalArgumentException("target: " + (f.length - i) + " fields (expected 14)");
    }
    return new AttackTarget(URI.create(f[i]), new InetSocketAddress(f[i + 1], Integer.parseInt(f[i + 2])),
        new InetSocketAddress(f[i + 3], Integer.parseInt(f[i + 4])),
        new String(Base64.getDecoder().decode(f[i + 5]), StandardCharsets.UTF_8), Long.parseLong(f[i + 6]),
        Integer.parseInt(f[i + 7]), Integer.parseInt(f[i + 8]), Integer.parseInt(f[i + 9]),
        Duration.ofMillis(Long.parseLong(f[i + 10])), Long.parseLong(f[i + 11]), Integer.parseInt(f[i + 12]),
        f[i + 13].equals("-") ? null : InetAddress.getByName(f[i + 13]));
  }

  static String snapshot(AttackStats.Snapshot s) {
    StringJoiner refusals = new StringJoiner(",");
    s.refusals().forEach((k, v) -> refusals.add(k + "=" + v));
    return String.join("\t", s.kind().cliName(), Long.toString(s.elapsedNanos()), Long.toString(s.sent()),
        Long.toString(s.accepted()), Long.toString(s.connects()), Integer.toString(s.open()),
        Long.toString(s.firstRefusalNanos()), Long.toString(s.longestOpenNanos()), refusals.toString());
  }

  static AttackStats.Snapshot snapshot(String line) {
    String[] f = line.split("\t", -1);
    if (f.length != 9) {
      throw new IllegalArgumentException("snapshot: " + f.length + " fields (expected 9): " + line);
    }
    Map<String, Long> refusals = new LinkedHashMap<>();
    if (!f[8].isEmpty()) {
      for (String kv : f[8].split(",")) {
        int eq = kv.lastIndexOf('=');
        refusals.put(kv.substring(0, eq), Long.parseLong(kv.substring(eq + 1)));
      }
    }
    return new AttackStats.Snapshot(AttackKind.parse(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2]),
        Long.parseLong(f[3]), Long.parseLong(f[4]), Integer.parseInt(f[5]), Long.parseLong(f[6]),
        Long.parseLong(f[7]), refusals);
  }
}
