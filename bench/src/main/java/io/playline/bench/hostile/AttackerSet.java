package io.playline.bench.hostile;

import io.netty.channel.EventLoopGroup;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The attackers of one phase (or of the warm-up), started and closed together. Control thread only. */
public final class AttackerSet implements AutoCloseable {
  private final List<Attacker> attackers = new ArrayList<>();

  private AttackerSet() {
  }

  /** Starts one attacker per kind; those already started are closed if a later one fails to start. */
  public static AttackerSet start(List<AttackKind> kinds, AttackTarget target, EventLoopGroup group, boolean epoll,
      Duration length) {
    AttackerSet set = new AttackerSet();
    try {
      for (AttackKind k : kinds) {
        set.attackers.add(Attacker.start(k, target, group, epoll, length));
      }
    } catch (RuntimeException e) {
      set.close();
      throw e;
    }
    return set;
  }

  /** Each attacker's counters now. */
  public List<AttackStats.Snapshot> snapshots() {
    return attackers.stream().map(a -> a.stats().snapshot()).toList();
  }

  /** One line of these attackers' progress, for the per-second report. */
  static String progressLine(List<AttackStats.Snapshot> snapshots) {
    StringBuilder s = new StringBuilder();
    for (AttackStats.Snapshot x : snapshots) {
      s.append(String.format(Locale.ROOT, "[%s sent %d open %d refused %d] ", x.kind().cliName(), x.sent(), x.open(),
          x.refusalTotal()));
    }
    return s.toString();
  }

  @Override
  public void close() {
    for (Attacker a : attackers) {
      a.close();
    }
  }
}
