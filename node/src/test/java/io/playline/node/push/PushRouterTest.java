package io.playline.node.push;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.HistoryRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;

/** Where a push goes: this node's connections always, other nodes as the registry's lookup says, when it says it. */
class PushRouterTest {
  private static final long UID = 8;
  private static final HistoryRecord RECORD = HistoryRecord.newBuilder().setUid(UID).setBusiness(Business.VIDEO)
      .setOid(3).setProgressMs(40).build();

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final List<PushMessage> local = new ArrayList<>();
  private final List<String> published = new ArrayList<>();
  private CompletableFuture<List<String>> lookup = new CompletableFuture<>();

  /** The single node's registry, but for the lookup, which each test sets. */
  private final UserNodesRegistry userNodes = new UserNodesRegistry() {
    @Override
    public void add(long uid) {
      UserNodesRegistry.LOCAL.add(uid);
    }

    @Override
    public CompletionStage<Void> remove(long uid) {
      return UserNodesRegistry.LOCAL.remove(uid);
    }

    @Override
    public CompletionStage<List<String>> otherNodes(long uid) {
      return lookup;
    }
  };

  private final PushRouter router = new PushRouter(local::add, userNodes, (node, wire) -> {
    published.add(node);
    return CompletableFuture.completedFuture(null);
  }, new PushMetrics(registry));

  private double routed() {
    return registry.get("playline.push.routes").counter().count();
  }

  /** A completed lookup that says whether the router chained a stage onto it. */
  private static final class WatchedLookup extends CompletableFuture<List<String>> {
    boolean chained;

    @Override
    public <U> CompletableFuture<U> handle(BiFunction<? super List<String>, Throwable, ? extends U> fn) {
      chained = true;
      return super.handle(fn);
    }
  }

  @Test
  void aUserKnownToBeOnThisNodeOnlyIsRoutedAtOnce() {
    WatchedLookup cached = new WatchedLookup();
    cached.complete(List.of());
    lookup = cached;
    CompletionStage<Void> done = router.route(new PushMessage(UID, "s", "phone", List.of(RECORD)));
    assertThat(cached.chained).as("nothing chained onto the cached answer").isFalse();
    assertThat(done.toCompletableFuture()).isCompleted();
    assertThat(local).hasSize(1);
    assertThat(published).isEmpty();
    assertThat(routed()).isEqualTo(1);
  }

  @Test
  void aUserOnOtherNodesGetsOneMessagePerNode() {
    lookup = CompletableFuture.completedFuture(List.of("n2", "n3"));
    CompletionStage<Void> done = router.route(new PushMessage(UID, "s", "phone", List.of(RECORD)));
    assertThat(done.toCompletableFuture()).isCompleted();
    assertThat(local).hasSize(1);
    assertThat(published).containsExactly("n2", "n3");
    assertThat(routed()).isEqualTo(1);
  }

  @Test
  void aLookupStillUnderWayRoutesWhenItIsAnswered() {
    CompletionStage<Void> done = router.route(new PushMessage(UID, "s", "phone", List.of(RECORD)));
    assertThat(local).as("this node's connections at once").hasSize(1);
    assertThat(done.toCompletableFuture()).isNotDone();
    assertThat(routed()).isZero();
    lookup.complete(List.of("n2"));
    assertThat(done.toCompletableFuture()).isCompleted();
    assertThat(published).containsExactly("n2");
    assertThat(routed()).isEqualTo(1);
  }

  @Test
  void aFailedLookupFailsTheRouteAndKeepsThePushLocal() {
    lookup = CompletableFuture.failedFuture(new IllegalStateException("redis down"));
    CompletionStage<Void> done = router.route(new PushMessage(UID, "s", "phone", List.of(RECORD)));
    assertThat(done.toCompletableFuture()).isCompletedExceptionally();
    assertThat(local).hasSize(1);
    assertThat(published).isEmpty();
    assertThat(routed()).isEqualTo(1);
  }
}
