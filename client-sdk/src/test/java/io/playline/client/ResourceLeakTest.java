package io.playline.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.playline.proto.lite.v1.Business;
import io.playline.proto.lite.v1.Error.Code;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A client that the gateway keeps closing (a flood trips its per-connection rate limit) reconnects
 * each time, loses nothing, and once closed leaves no thread behind: channels and the event loop
 * are not leaked across reconnects.
 */
@ExtendWith(RealRedisExtension.class)
class ResourceLeakTest {
  private static final int FLOODS = 3;

  @ParameterizedTest
  @EnumSource(Wire.class)
  void reconnectsLeakNothingAndCloseStopsEveryThread(Wire transport, RedisNamespace ns) throws Exception {
    long uid = 801;
    Recorder events = new Recorder();
    try (GatewayFixture gateway = new GatewayFixture(ns, "connection.max.frames.per.second", "3")) {
      Set<String> before = threadNames();
      int baseline = before.size();
      AbstractPlaylineClient client = gateway.client(transport, uid, "phone").listener(events).build();
      events.awaitCount(ConnectionState.CONNECTED, 1);
      long oid = 0;
      for (int flood = 1; flood <= FLOODS; flood++) {
        // Twenty frames at once: however the gateway's one-second window splits them, one side
        // holds more than twice the limit, which closes the connection.
        for (int i = 0; i < 20; i++) {
          oid++;
          client.report(Business.VIDEO, oid, 1_000 * oid, 600_000);
          client.flush();
        }
        events.awaitCount(ConnectionState.CONNECTED, flood + 1);
        // The connection the gateway closed lets go of its socket (or gRPC channel) too.
        await().atMost(Duration.ofSeconds(10)).until(() -> client.liveConnections() == 1);
      }
      client.flush().get(15, TimeUnit.SECONDS);
      client.close();
      assertThat(client.liveConnections()).isZero();

      // The gateway's rate limit is what dropped the connections: seen as an Error frame or as the
      // cause of the reconnect.
      java.util.List<Code> causes = new java.util.ArrayList<>();
      events.errors.forEach(e -> causes.add(e.code()));
      events.states.stream().map(Recorder.State::cause)
          .filter(c -> c instanceof PlaylineException).forEach(c -> causes.add(((PlaylineException) c).code()));
      // When the gateway closes while the client is still sending, TCP may reset the connection and
      // the client never reads those frames; the gateway's own count is the proof then.
      double limited = gateway.node().counter("playline.errors", "code", "RATE_LIMITED");
      assertThat(causes.contains(Code.RATE_LIMITED) || limited > 0)
          .as("rate limit seen by the client %s or counted by the gateway (%s)", causes, limited).isTrue();
      for (long item = 1; item <= oid; item++) {
        assertThat(gateway.stored(uid, Business.VIDEO, item)).as("item %s", item).isNotNull();
      }
      assertThat(events.states.get(events.states.size() - 1).state()).isEqualTo(ConnectionState.CLOSED);
      await("threads of the client gone").atMost(Duration.ofSeconds(15)).pollInSameThread()
          .pollInterval(Duration.ofMillis(200))
          .untilAsserted(() -> assertThat(threadNames().size())
              .as("threads started and not ended: %s", minus(threadNames(), before))
              .isLessThanOrEqualTo(baseline));
      assertThat(threadNames()).noneMatch(name -> name.startsWith("playline-client"));
    }
  }

  /**
   * Live threads by name (with the id, so two threads of one name count twice), except the
   * gateway's own I/O workers (Netty starts those lazily as connections arrive, so reconnects
   * legitimately start server threads that live until the gateway stops) and OkHttp's and Okio's
   * process-wide ones (one task runner and one timeout watchdog for every OkHttpClient in the
   * process, not the client's; idle ones end by themselves after a minute).
   */
  private static Set<String> threadNames() {
    Set<String> names = new TreeSet<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      String name = t.getName();
      if (!name.startsWith("playline-io-") && !name.equals("OkHttp TaskRunner") && !name.equals("Okio Watchdog")) {
        names.add(t.getName() + "#" + t.getId());
      }
    }
    return names;
  }

  private static Set<String> minus(Set<String> a, Set<String> b) {
    Set<String> d = new TreeSet<>(a);
    d.removeAll(b);
    return d;
  }
}
