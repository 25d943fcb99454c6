package io.playline.bench.hostile;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The attacker process of {@code bench hostile} ({@link AttackerProcess} starts it): runs the
 * attacks the bench asks for on stdin ({@link AttackWire}) and answers on stdout. Its own JVM, so
 * that the attackers' allocation, garbage collection and compilation stop neither the honest
 * players' clients nor their latency timers, and (under {@code SCHED_IDLE}) run only on CPU time
 * the node, Redis and the honest players leave, as on machines of their own. One attack set at a
 * time; exits on {@code exit} or when stdin closes (the bench is gone).
 */
public final class AttackerMain {
  private AttackerMain() {}

  public static void main(String[] args) throws Exception {
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    System.setOut(System.err); // stdout is the protocol's: anything else printed goes to the bench's stderr
    boolean epoll = Epoll.isAvailable();
    DefaultThreadFactory threads = new DefaultThreadFactory("hostile-io", true);
    EventLoopGroup group = epoll ? new EpollEventLoopGroup(1, threads) : new NioEventLoopGroup(1, threads);
    @Nullable AttackerSet running = null;
    out.println(AttackWire.OK); // up: the bench waits for this before its first command
    try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
      for (String line = in.readLine(); line != null && !line.equals(AttackWire.EXIT); line = in.readLine()) {
        String[] f = line.split("\t", -1);
        try {
          switch (f[0]) {
            case AttackWire.START -> {
              if (running != null) {
                running.close();
              }
              running = AttackerSet.start(AttackWire.kinds(f[1]), AttackWire.target(f, 3), group, epoll,
                  Duration.ofMillis(Long.parseLong(f[2])));
              out.println(AttackWire.OK);
            }
            case AttackWire.SNAPSHOT -> {
              List<AttackStats.Snapshot> s = running == null ? List.of() : running.snapshots();
              out.println(s.size());
              s.forEach(x -> out.println(AttackWire.snapshot(x)));
            }
            case AttackWire.STOP -> {
              if (running != null) {
                running.close();
                running = null;
              }
              out.println(AttackWire.OK);
            }
            default -> out.println(AttackWire.ERROR + "\tunknown command " + f[0]);
          }
        } catch (RuntimeException e) {
          out.println(AttackWire.ERROR + "\t" + String.valueOf(e).replace('\n', ' ').replace('\t', ' '));
        }
      }
    } finally {
      if (running != null) {
        running.close();
      }
      group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS);
    }
  }
}
