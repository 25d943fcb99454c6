package io.playline.gateway;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Attaching the player edge to a node that is already closed. */
@ExtendWith(RealRedisExtension.class)
class PlayerEdgeAttachTest {

  @Test
  void attachingToAClosedNodeFailsNamingTheNode(RedisNamespace ns) {
    try (TestGateway gateway = new TestGateway(ns, Map.of("node.id", "closed-node"))) {
      gateway.node.close();

      assertThatThrownBy(() -> PlayerEdge.attach(gateway.node, gateway.config, gateway.push, null))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("cannot attach the player edge to node closed-node: the node is closed");
    }
  }
}
