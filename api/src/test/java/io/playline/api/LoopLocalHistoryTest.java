package io.playline.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.channel.DefaultEventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import io.playline.core.query.HistoryService;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** Each call goes to the read path of the loop it is made on; off every loop, to the first. */
class LoopLocalHistoryTest {
  @Test
  void aCallTakesItsLoopsPathAndOffTheLoopsTheFirst() throws Exception {
    DefaultEventLoopGroup group = new DefaultEventLoopGroup(3);
    try {
      List<EventExecutor> loops = new ArrayList<>();
      group.forEach(loops::add);
      List<LoopLocalHistory.OnLoop> paths = new ArrayList<>();
      for (int i = 0; i < loops.size(); i++) {
        paths.add(new LoopLocalHistory.OnLoop(loops.get(i), named("path-" + i)));
      }
      LoopLocalHistory history = new LoopLocalHistory(paths);
      for (int i = 0; i < loops.size(); i++) {
        assertThat(on(loops.get(i), history, h -> h.progress(1, List.of()))).isEqualTo("path-" + i);
        assertThat(on(loops.get(i), history, h -> h.list(1, List.of(), null, 0))).isEqualTo("path-" + i);
        assertThat(on(loops.get(i), history, h -> h.clear(1, List.of(), true))).isEqualTo("path-" + i);
        assertThat(on(loops.get(i), history, h -> h.delete(1, List.of()))).isEqualTo("path-" + i);
        assertThat(on(loops.get(i), history, h -> h.setPaused(1, true))).isEqualTo("path-" + i);
        assertThat(on(loops.get(i), history, h -> h.paused(1))).isEqualTo("path-" + i);
        assertThat(on(loops.get(i), history, h -> h.itemStats(List.of()))).isEqualTo("path-" + i);
      }
      CompletionStage<?> offTheLoops = history.progress(1, List.of());
      assertThat((Object) offTheLoops.toCompletableFuture().join()).as("off every loop").isEqualTo("path-0");
      assertThatThrownBy(() -> new LoopLocalHistory(List.of())).isInstanceOf(IllegalArgumentException.class);
    } finally {
      group.shutdownGracefully(0, 2, TimeUnit.SECONDS).sync();
    }
  }

  /** What {@code call} answers when made on {@code loop}. */
  private static Object on(EventExecutor loop, HistoryService history,
      Function<HistoryService, CompletionStage<?>> call) throws Exception {
    return loop.submit(() -> call.apply(history).toCompletableFuture().join()).get(10, TimeUnit.SECONDS);
  }

  /** A read path whose every call answers {@code name}. */
  private static HistoryService named(String name) {
    return (HistoryService) Proxy.newProxyInstance(HistoryService.class.getClassLoader(),
        new Class<?>[] {HistoryService.class}, (proxy, method, args) -> switch (method.getName()) {
          case "toString" -> name;
          case "hashCode" -> name.hashCode();
          case "equals" -> proxy == args[0];
          default -> CompletableFuture.completedFuture(name);
        });
  }
}
