package io.playline.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.playline.testing.HBaseNamespace;
import io.playline.testing.RealHBaseExtension;
import io.playline.time.Time;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.client.AsyncConnection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The lazy HBase client against the real HBase: it opens nothing until the first need, opens once
 * for concurrent first needs, on its own thread; a failed attempt is retried by the next need; it
 * closes whether or not it was opened.
 */
@ExtendWith(RealHBaseExtension.class)
class HBaseClientTest {
  private static final long WAIT_SECONDS = 60;

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  /** Opens real connections with the configuration it is pointed at, counting attempts and noting their thread. */
  private static final class CountingOpener implements Supplier<CompletableFuture<AsyncConnection>> {
    final AtomicReference<Configuration> configuration;
    final AtomicInteger attempts = new AtomicInteger();
    final AtomicReference<String> thread = new AtomicReference<>();
    final CountDownLatch gate;
    final List<AsyncConnection> opened = new ArrayList<>();

    CountingOpener(Configuration configuration, CountDownLatch gate) {
      this.configuration = new AtomicReference<>(configuration);
      this.gate = gate;
    }

    @Override
    public CompletableFuture<AsyncConnection> get() {
      attempts.incrementAndGet();
      thread.set(Thread.currentThread().getName());
      try {
        if (!gate.await(WAIT_SECONDS, TimeUnit.SECONDS)) {
          throw new IllegalStateException("gate not opened");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
      return ConnectionFactory.createAsyncConnection(configuration.get()).thenApply(c -> {
        synchronized (opened) {
          opened.add(c);
        }
        return c;
      });
    }
  }

  private static CountDownLatch open() {
    return new CountDownLatch(0);
  }

  private static <T> T join(CompletionStage<T> stage) throws Exception {
    return stage.toCompletableFuture().get(WAIT_SECONDS, TimeUnit.SECONDS);
  }

  private double connects(String outcome) {
    return registry.get("playline.hbase.client.connects").tag("outcome", outcome).counter().count();
  }

  private double running() {
    return registry.get("playline.hbase.client.running").gauge().value();
  }

  @Test
  void opensNothingUntilTheFirstNeedThenOpensOnItsOwnThread(HBaseNamespace hbase) throws Exception {
    CountingOpener opener = new CountingOpener(hbase.configuration(), open());
    try (HBaseClient client = new HBaseClient(opener, Duration.ofSeconds(WAIT_SECONDS), registry, Time.SYSTEM)) {
      assertThat(client.state()).isEqualTo(HBaseClient.State.IDLE);
      assertThat(client.ifOpen()).isNull();
      assertThat(opener.attempts).hasValue(0);
      assertThat(running()).isZero();
      assertThat(connects("ok") + connects("failed")).isZero();

      AsyncConnection connection = join(client.connection());
      assertThat(opener.thread).as("never the caller's thread (an event loop)").hasValue(HBaseClient.THREAD_NAME);
      assertThat(connection.getAdmin().listNamespaceDescriptors().get(WAIT_SECONDS, TimeUnit.SECONDS))
          .extracting(NamespaceDescriptor::getName).contains(hbase.namespace());
      assertThat(client.state()).isEqualTo(HBaseClient.State.RUNNING);
      assertThat(client.ifOpen()).isSameAs(connection);
      assertThat(join(client.connection())).isSameAs(connection);
      assertThat(opener.attempts).hasValue(1);
      assertThat(running()).isEqualTo(1);
      assertThat(connects("ok")).isEqualTo(1);
    }
  }

  @Test
  void concurrentFirstNeedsShareOneAttempt(HBaseNamespace hbase) throws Exception {
    CountDownLatch gate = new CountDownLatch(1);
    CountingOpener opener = new CountingOpener(hbase.configuration(), gate);
    int needs = 8;
    ExecutorService callers = Executors.newFixedThreadPool(needs);
    try (HBaseClient client = new HBaseClient(opener, Duration.ofSeconds(WAIT_SECONDS), registry, Time.SYSTEM)) {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<CompletionStage<AsyncConnection>>> asked = new ArrayList<>();
      for (int i = 0; i < needs; i++) {
        asked.add(callers.submit(() -> {
          start.await();
          return client.connection();
        }));
      }
      start.countDown();
      List<CompletionStage<AsyncConnection>> stages = new ArrayList<>();
      for (Future<CompletionStage<AsyncConnection>> f : asked) {
        stages.add(f.get(WAIT_SECONDS, TimeUnit.SECONDS));
      }
      // Every need was asked while the one attempt waits at the gate.
      assertThat(client.state()).isEqualTo(HBaseClient.State.CONNECTING);
      gate.countDown();
      AsyncConnection first = join(stages.get(0));
      for (CompletionStage<AsyncConnection> s : stages) {
        assertThat(join(s)).isSameAs(first);
      }
      assertThat(opener.attempts).hasValue(1);
      assertThat(opener.opened).hasSize(1);
      assertThat(connects("ok")).isEqualTo(1);
    } finally {
      callers.shutdownNow();
    }
  }

  @Test
  void aFailedAttemptFailsItsWaitersAndTheNextNeedTriesAgain(HBaseNamespace hbase) throws Exception {
    // Nothing listens on port 1: the first attempt fails (ZooKeeper refuses) or times out, whichever first.
    Configuration nowhere = hbase.configuration();
    nowhere.setInt(HConstants.ZOOKEEPER_CLIENT_PORT, 1);
    nowhere.setInt("zookeeper.recovery.retry", 0);
    CountingOpener opener = new CountingOpener(nowhere, open());
    try (HBaseClient client = new HBaseClient(opener, Duration.ofSeconds(2), registry, Time.SYSTEM)) {
      CompletionStage<AsyncConnection> failing = client.connection();
      assertThatThrownBy(() -> join(failing)).isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(RetriableStoreException.class);
      assertThat(client.state()).isEqualTo(HBaseClient.State.FAILED);
      assertThat(connects("failed")).isEqualTo(1);
      assertThat(running()).isZero();

      opener.configuration.set(hbase.configuration());
      AsyncConnection connection = join(client.connection());
      assertThat(connection.isClosed()).isFalse();
      assertThat(client.state()).isEqualTo(HBaseClient.State.RUNNING);
      assertThat(opener.attempts).hasValue(2);
      assertThat(connects("ok")).isEqualTo(1);
      assertThat(connects("failed")).isEqualTo(1);
    }
  }

  @Test
  void closesWhetherOrNotItWasOpened(HBaseNamespace hbase) throws Exception {
    CountingOpener never = new CountingOpener(hbase.configuration(), open());
    HBaseClient unused = new HBaseClient(never, Duration.ofSeconds(WAIT_SECONDS), registry, Time.SYSTEM);
    unused.close();
    unused.close();
    assertThat(unused.state()).isEqualTo(HBaseClient.State.CLOSED);
    assertThat(never.attempts).as("closing opens nothing").hasValue(0);
    assertThatThrownBy(() -> join(unused.connection())).hasCauseInstanceOf(IllegalStateException.class);

    CountingOpener opener = new CountingOpener(hbase.configuration(), open());
    HBaseClient used = new HBaseClient(opener, Duration.ofSeconds(WAIT_SECONDS), new SimpleMeterRegistry(),
        Time.SYSTEM);
    AsyncConnection connection = join(used.connection());
    used.close();
    assertThat(connection.isClosed()).isTrue();
    assertThat(used.ifOpen()).isNull();

    // Closed while an attempt waits: the connection it brings is closed and its waiters fail.
    CountDownLatch gate = new CountDownLatch(1);
    CountingOpener late = new CountingOpener(hbase.configuration(), gate);
    HBaseClient closing = new HBaseClient(late, Duration.ofSeconds(WAIT_SECONDS), new SimpleMeterRegistry(),
        Time.SYSTEM);
    CompletionStage<AsyncConnection> waiting = closing.connection();
    closing.close();
    gate.countDown();
    assertThatThrownBy(() -> join(waiting)).hasCauseInstanceOf(IllegalStateException.class);
    assertThat(late.opened).hasSize(1);
    assertThat(late.opened.get(0).isClosed()).isTrue();
  }
}
