package io.playline.gateway.push;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.embedded.EmbeddedChannel;
import io.playline.gateway.stream.ConnectionIdentity;
import io.playline.node.push.PushConfig;
import io.playline.node.push.PushMessage;
import io.playline.node.push.PushMetrics;
import io.playline.node.push.UserNodesRegistry;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.HistoryRecord;
import io.playline.testing.ManualTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The local registry's lifecycle of the shared registry entry, and local delivery. */
class ConnectionRegistryTest {
  private static final long UID = 5;
  private static final HistoryRecord RECORD = HistoryRecord.newBuilder().setUid(UID).setBusiness(Business.VIDEO)
      .setOid(1).setProgressMs(10).build();

  /** Records the registry calls in order. */
  private static final class RecordingUserNodes implements UserNodesRegistry {
    final List<String> calls = new CopyOnWriteArrayList<>();

    @Override
    public void add(long uid) {
      calls.add("add " + uid);
    }

    @Override
    public CompletionStage<Void> remove(long uid) {
      calls.add("remove " + uid);
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletionStage<List<String>> otherNodes(long uid) {
      return CompletableFuture.completedFuture(List.of());
    }
  }

  private final EmbeddedChannel channel = new EmbeddedChannel();
  private final RecordingUserNodes userNodes = new RecordingUserNodes();
  private final ManualTime time = new ManualTime(Instant.parse("2024-05-01T00:00:00Z"));
  private final ConnectionRegistry registry = new ConnectionRegistry(userNodes,
      new PushConfig(Duration.ZERO, Duration.ofMinutes(3)), new PushMetrics(new SimpleMeterRegistry()), time);

  @AfterEach
  void close() {
    channel.finishAndReleaseAll();
  }

  private ConnectionRegistry.Registration register(String session, String device, RecordingTransport t) {
    return registry.register(new ConnectionIdentity(UID, session, device, "test"), t);
  }

  @Test
  void firstConnectionAddsTheEntryAndLastOneRemovesIt() {
    ConnectionRegistry.Registration phone = register("s1", "phone", new RecordingTransport(channel.eventLoop()));
    ConnectionRegistry.Registration tv = register("s2", "tv", new RecordingTransport(channel.eventLoop()));
    assertThat(userNodes.calls).containsExactly("add 5");
    phone.close();
    phone.close();
    assertThat(userNodes.calls).containsExactly("add 5");
    assertThat(registry.holds(UID)).isTrue();
    tv.close();
    assertThat(userNodes.calls).containsExactly("add 5", "remove 5");
    assertThat(registry.holds(UID)).isFalse();
  }

  @Test
  void activityRefreshesTheEntryAtMostOncePerRefreshInterval() {
    register("s1", "phone", new RecordingTransport(channel.eventLoop()));
    time.advance(Duration.ofSeconds(59));
    registry.touch(UID);
    assertThat(userNodes.calls).containsExactly("add 5");
    time.advance(Duration.ofSeconds(1));
    registry.touch(UID);
    registry.touch(UID);
    assertThat(userNodes.calls).containsExactly("add 5", "add 5");
    registry.touch(UID + 1);
    assertThat(userNodes.calls).hasSize(2);
  }

  @Test
  void aConnectionsActivityRefreshesItsUsersEntryWhenDueOnly() {
    ConnectionRegistry.Registration phone = register("s1", "phone", new RecordingTransport(channel.eventLoop()));
    time.advance(Duration.ofSeconds(30));
    ConnectionRegistry.Registration tv = register("s2", "tv", new RecordingTransport(channel.eventLoop()));
    assertThat(tv.refreshClock()).as("one refresh clock per user").isSameAs(phone.refreshClock());
    time.advance(Duration.ofSeconds(29));
    phone.touch();
    tv.touch();
    assertThat(userNodes.calls).as("not due: the user's entry is 59 s old").containsExactly("add 5");
    time.advance(Duration.ofSeconds(1));
    tv.touch();
    phone.touch();
    assertThat(userNodes.calls).as("due once for the user, whichever connection is active")
        .containsExactly("add 5", "add 5");
    time.advance(Duration.ofSeconds(60));
    phone.close();
    phone.touch();
    assertThat(userNodes.calls).as("a closed connection refreshes nothing").hasSize(2);
    tv.touch();
    assertThat(userNodes.calls).containsExactly("add 5", "add 5", "add 5");
  }

  @Test
  void staleEntryIsRemovedOnlyWhileNoConnectionIsRegistered() {
    registry.forgetIfAbsent(UID);
    assertThat(userNodes.calls).containsExactly("remove 5");
    register("s1", "phone", new RecordingTransport(channel.eventLoop()));
    registry.forgetIfAbsent(UID);
    assertThat(userNodes.calls).containsExactly("remove 5", "add 5");
  }

  @Test
  void deliversOnTheConnectionsExecutorToEveryoneButTheOrigin() {
    RecordingTransport phone = new RecordingTransport(channel.eventLoop());
    RecordingTransport phoneAgain = new RecordingTransport(channel.eventLoop());
    RecordingTransport tv = new RecordingTransport(channel.eventLoop());
    register("s1", "phone", phone);
    register("s2", "phone", phoneAgain);
    register("s3", "tv", tv);

    int reached = registry.deliver(new PushMessage(UID, "s1", "phone", List.of(RECORD)));
    assertThat(reached).isEqualTo(1);
    assertThat(tv.sent).isEmpty();
    channel.runPendingTasks();
    assertThat(tv.sent).extracting(f -> f.getSync().getRecord()).containsExactly(RECORD);
    assertThat(phone.sent).isEmpty();
    assertThat(phoneAgain.sent).isEmpty();
    assertThat(registry.deliver(new PushMessage(UID + 1, "", "", List.of(RECORD)))).isZero();
  }
}
