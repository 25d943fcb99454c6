package io.playline.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.playline.proto.v1.ClientFrame;
import io.playline.proto.v1.GatewayGrpc;
import io.playline.proto.v1.ServerFrame;
import io.playline.testing.Frames;
import io.playline.testing.ManualTime;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import io.playline.testing.WsPlayerClient;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A client that sends requests but never reads the answers is closed once more than
 * connection.max.unsent.bytes wait for it (SLOW_CONSUMER), on both transports, while other
 * connections keep being served: the gateway's memory does not grow with the answers it holds.
 * The nodes run on a manual time, so no scenario depends on how fast the machine is: a one-second
 * window of the frame budget ends only when a test moves time, and the close grace passes the same way.
 */
@ExtendWith(RealRedisExtension.class)
class SlowConsumerTest {
  /** ~18 MB of answers: more than every kernel buffer between the two sockets and the budget together. */
  private static final int MAX_REQUESTS = 300_000;
  /** How long a connection closed with an error has to take its last frames. */
  private static final Duration CLOSE_GRACE = Duration.ofSeconds(5);
  /** connection.max.frames.per.second of the node each test has. */
  private static final int FRAMES_PER_SECOND = 100_000;
  private final ManualTime time = new ManualTime();
  /** A node of each test's own, so nothing one test left on its event loops can affect another. */
  private TestGateway gateway;

  @BeforeEach
  void start(RedisNamespace ns) {
    gateway = new TestGateway(ns, Map.of("connection.max.unsent.bytes", "65536",
        "connection.max.frames.per.second", Integer.toString(FRAMES_PER_SECOND)), time);
  }

  @AfterEach
  void stop() {
    gateway.close();
  }

  private double slowConsumers() {
    return gateway.counter("playline.errors", "code", "SLOW_CONSUMER");
  }

  /** Client frames the node has read, on every connection. */
  private double framesRead() {
    return gateway.registry.find("playline.frames.received").functionCounters().stream().mapToDouble(c -> c.count()).sum();
  }

  /** Each answered on this node (no queries) with a small UNAVAILABLE error frame. */
  private static ClientFrame query(long seq) {
    return Frames.progressQuery(seq, Frames.video(seq));
  }

  private static void stillServed(WsPlayerClient other, long seq) throws Exception {
    other.send(Frames.keepAlive(seq));
    ServerFrame ack = other.next();
    assertThat(ack.getSeq()).isEqualTo(seq);
    assertThat(ack.hasHeartbeatAck()).isTrue();
  }

  @Test
  void aWebSocketClientThatNeverReadsIsClosedWhileOthersAreServed() throws Exception {
    double before = slowConsumers();
    try (WsPlayerClient other = WsPlayerClient.connect(gateway.server.wsAddress().getPort())) {
      other.send(Frames.auth(1, TestGateway.token(77_001)));
      assertThat(other.next().hasAuthOk()).isTrue();
      // Requests within the frame budget (time moves a second on after each half of it, once the
      // node has read them), none of the answers read.
      try (Flood flood = Flood.start(gateway.server.wsAddress().getPort(), 77_002, FRAMES_PER_SECOND / 2,
          sent -> framesRead() >= sent || slowConsumers() > before, time)) {
        try {
          await().atMost(Duration.ofSeconds(60)).until(() -> {
            assertThat(flood.closedByTheGateway() && slowConsumers() == before).as("%s", flood).isFalse();
            return slowConsumers() == before + 1;
          });
        } catch (org.awaitility.core.ConditionTimeoutException e) {
          throw new AssertionError("no SLOW_CONSUMER within 60 s; " + flood, e);
        }
        await().atMost(Duration.ofSeconds(10)).until(flood::closedByTheGateway);
      }
      stillServed(other, 2);
    }
  }

  @Test
  void aClientClosedForAnotherReasonWhileNotReadingIsClosedAfterTheGrace(RedisNamespace ns) throws Exception {
    // On a manual time the frame budget's one-second window never ends: the flood's requests past
    // the limit are refused (RATE_LIMITED), and past twice the limit it gets RATE_LIMITED and a
    // close, whose frames it never takes.
    int limit = 1000;
    try (TestGateway strict = new TestGateway(ns,
            Map.of("connection.max.frames.per.second", Integer.toString(limit)), time);
        Flood flood = Flood.start(strict.server.wsAddress().getPort(), 77_005, MAX_REQUESTS, sent -> true, time)) {
      await().atMost(Duration.ofSeconds(30))
          .until(() -> strict.counter("playline.errors", "code", "RATE_LIMITED") >= limit + 1);
      // The close grace (5 s) passes as the test moves time (no earlier: a move would start a new
      // window); each move also reaches a grace the event loop had not yet scheduled at the one before.
      await().atMost(Duration.ofSeconds(20)).until(() -> {
        time.advance(CLOSE_GRACE);
        return strict.server.connectionLimiter().connections() == 0;
      });
      // One window: requests limit + 1 to 2 * limit refused, the next one closing.
      assertThat(strict.counter("playline.errors", "code", "RATE_LIMITED")).isEqualTo(limit + 1);
      // On a loaded machine the writer may take a while to see it; the message says how far it got.
      await().atMost(Duration.ofSeconds(30))
          .untilAsserted(() -> assertThat(flood.closedByTheGateway()).as("%s", flood).isTrue());
    }
  }

  /**
   * A raw WebSocket client that authenticates, then sends requests as fast as the socket takes them
   * and never reads. After each {@code perSecond} requests it waits until {@code read} says the node
   * has read the requests sent so far (or never will), then moves {@code time} a second on: the
   * node counts at most {@code perSecond} of them (and the few of its other clients) in any
   * one-second window of the frame budget, however fast the machine.
   */
  private static final class Flood implements AutoCloseable {
    private final RawWebSocket socket;
    private final Thread writer;
    private volatile boolean failed;
    private volatile long sent;
    private volatile @org.jspecify.annotations.Nullable Exception failure;

    private Flood(int port, long uid, int perSecond, java.util.function.LongPredicate read, ManualTime time)
        throws IOException {
      socket = new RawWebSocket(port, 4096).upgraded();
      socket.send(Frames.auth(1, TestGateway.token(uid)));
      OutputStream out = socket.out;
      out.flush();
      writer = new Thread(() -> {
        try {
          for (long seq = 2; seq < MAX_REQUESTS; seq++) {
            RawWebSocket.sendFrame(out, query(seq).toByteArray());
            sent = seq;
            if (seq % 500 == 0) {
              out.flush();
            }
            if (seq % perSecond == 0) {
              out.flush();
              long sentSoFar = seq;
              await().atMost(Duration.ofSeconds(30)).until(() -> read.test(sentSoFar));
              time.advance(Duration.ofSeconds(1));
            }
          }
          out.flush();
        } catch (IOException e) {
          failure = e;
          failed = true; // the gateway closed the socket (here after ~230 000 requests: loopback buffers are large)
        } catch (RuntimeException e) {
          failure = e; // the node stopped reading before its window ended: the test's message says so
        }
      }, "flood-" + uid);
      writer.setDaemon(true);
      writer.start();
    }

    static Flood start(int port, long uid, int perSecond, java.util.function.LongPredicate read, ManualTime time)
        throws IOException {
      return new Flood(port, uid, perSecond, read, time);
    }

    /** For failure messages: how far the flood got. */
    @Override
    public String toString() {
      return "flood: " + sent + " requests sent, writer " + writer.getState() + (failure == null ? "" : ", " + failure);
    }

    /**
     * Whether writing failed because the gateway closed the connection. A writer that sent all
     * its requests first (a closing node reads and drops them fast) checks with one more write.
     */
    boolean closedByTheGateway() {
      return failed || (!writer.isAlive() && socket.resetOnWrite());
    }

    @Override
    public void close() throws IOException {
      socket.close(); // unblocks a writer stuck on a full socket
      try {
        writer.join(10_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @Test
  void aGrpcClientThatNeverReadsIsEndedWhileOthersAreServed() throws Exception {
    double before = slowConsumers();
    ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", gateway.server.grpcAddress().getPort())
        .usePlaintext().build();
    AtomicBoolean ended = new AtomicBoolean();
    try (WsPlayerClient other = WsPlayerClient.connect(gateway.server.wsAddress().getPort())) {
      other.send(Frames.auth(1, TestGateway.token(77_003)));
      assertThat(other.next().hasAuthOk()).isTrue();
      ClientResponseObserver<ClientFrame, ServerFrame> neverReads = new ClientResponseObserver<>() {
        @Override
        public void beforeStart(ClientCallStreamObserver<ClientFrame> requests) {
          requests.disableAutoRequestWithInitial(0); // asks for no answer, ever
        }

        @Override
        public void onNext(ServerFrame value) {}

        @Override
        public void onError(Throwable t) {
          ended.set(true);
        }

        @Override
        public void onCompleted() {
          ended.set(true);
        }
      };
      var requests = (ClientCallStreamObserver<ClientFrame>) GatewayGrpc.newStub(channel).connect(neverReads);
      requests.onNext(Frames.auth(1, TestGateway.token(77_004)));
      for (long seq = 2; seq < MAX_REQUESTS && slowConsumers() == before && !ended.get(); seq++) {
        requests.onNext(query(seq));
        if (seq % 1_000 == 0) {
          // the request direction has flow control too: wait for the gateway to read (it does)
          await().atMost(Duration.ofSeconds(30)).until(() -> requests.isReady() || slowConsumers() > before);
        }
      }
      await().atMost(Duration.ofSeconds(30)).until(() -> slowConsumers() == before + 1);
      stillServed(other, 2);
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }
}
