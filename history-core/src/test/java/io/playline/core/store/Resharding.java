package io.playline.core.store;

import io.lettuce.core.MigrateArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.playline.embedded.EmbeddedRedisCluster;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Moves one hash slot, with its keys, from one master to another the way {@code redis-cli
 * --cluster reshard} does: IMPORTING on the target, MIGRATING on the source, MIGRATE the keys in
 * batches, then SETSLOT NODE on every master. Test support; blocking.
 */
final class Resharding {
  private Resharding() {}

  static void moveSlot(int slot, EmbeddedRedisCluster.Node from, EmbeddedRedisCluster.Node to,
      EmbeddedRedisCluster cluster) throws IOException {
    List<RedisClient> clients = new ArrayList<>();
    try {
      RedisCommands<byte[], byte[]> source = connect(from, clients);
      RedisCommands<byte[], byte[]> target = connect(to, clients);
      String sourceId = source.clusterMyId();
      String targetId = target.clusterMyId();
      target.clusterSetSlotImporting(slot, sourceId);
      source.clusterSetSlotMigrating(slot, targetId);
      for (List<byte[]> batch = source.clusterGetKeysInSlot(slot, 100); !batch.isEmpty();
          batch = source.clusterGetKeysInSlot(slot, 100)) {
        source.migrate(to.host(), to.port(), 0, 10_000, MigrateArgs.Builder.keys(batch));
      }
      target.clusterSetSlotNode(slot, targetId);
      source.clusterSetSlotNode(slot, targetId);
      for (int probe = 0; probe < 16384; probe += 1000) {
        EmbeddedRedisCluster.Node master = cluster.masterOf(probe);
        if (!master.equals(from) && !master.equals(to)) {
          connect(master, clients).clusterSetSlotNode(slot, targetId);
        }
      }
    } finally {
      clients.forEach(RedisClient::shutdown);
    }
  }

  private static RedisCommands<byte[], byte[]> connect(EmbeddedRedisCluster.Node node, List<RedisClient> clients) {
    RedisClient client = RedisClient.create(RedisURI.create(node.uri()));
    clients.add(client);
    StatefulRedisConnection<byte[], byte[]> c = client.connect(ByteArrayCodec.INSTANCE);
    return c.sync();
  }
}
