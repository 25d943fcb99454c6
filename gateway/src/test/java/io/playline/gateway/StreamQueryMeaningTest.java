package io.playline.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.playline.proto.v1.ClearHistory;
import io.playline.proto.v1.ClientFrame;
import io.playline.proto.v1.Error.Code;
import io.playline.proto.v1.HistoryQuery;
import io.playline.proto.v1.ServerFrame;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import io.playline.testing.WsPlayerClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The player stream's queries mean what they say, as the internal API's do: a business number the
 * API does not define is INVALID_ARGUMENT naming the field and the number, before the history
 * service could read it as another value or as none; the connection stays open. (A clear's scope
 * is checked by the history service itself, for every transport: {@code RequestValidationTest}.)
 */
@ExtendWith(RealRedisExtension.class)
class StreamQueryMeaningTest {
  @Test
  void anUnknownBusinessIsRefusedBeforeTheHistoryService(RedisNamespace ns) throws Exception {
    UserBudgetTest.ControlsSeen history = new UserBudgetTest.ControlsSeen();
    List<WsPlayerClient> clients = new ArrayList<>();
    try (TestGateway gateway = new TestGateway(ns.redisUri(), false, ns.keyPrefix(), Map.of(), false, history);
        WsPlayerClient player = UserBudgetTest.authed(gateway, clients, 46_001, "phone")) {
      player.send(ClientFrame.newBuilder().setSeq(2).setClear(ClearHistory.newBuilder().addBusinessesValue(99))
          .build());
      player.send(ClientFrame.newBuilder().setSeq(3).setHistoryQuery(HistoryQuery.newBuilder().addBusinessesValue(1)
          .addBusinessesValue(42)).build());
      List<ServerFrame> answers = UserBudgetTest.answers(player, 2);
      String expected = " (expected: a Business the API defines: VIDEO, ARTICLE, COMIC, LIVE, AUDIO, EPISODE)";
      assertThat(answers).extracting(f -> f.getError().getCode(), f -> f.getError().getMessage()).containsExactly(
          tuple(Code.INVALID_ARGUMENT, "businesses[0]: 99" + expected),
          tuple(Code.INVALID_ARGUMENT, "businesses[1]: 42" + expected));
      assertThat(history.items).hasValue(0);
      assertThat(player.closed).isNotDone();
    }
  }
}
