package io.playline.core.aggregate;

/**
 * Maps a user to its partition of the write-back topic: {@code floorMod(hash(uid), partitions)}
 * with a 64-bit mixing hash, so consecutive uids spread evenly and every node agrees. Stateless.
 */
public final class UserPartitions {
  private UserPartitions() {}

  /** The partition, in {@code [0, partitionCount)}, that carries every change of {@code uid}. */
  public static int of(long uid, int partitionCount) {
    if (partitionCount <= 0) {
      throw new IllegalArgumentException("partitionCount: " + partitionCount + " (expected: > 0)");
    }
    return (int) Math.floorMod(mix(uid), (long) partitionCount);
  }

  /** The MurmurHash3 64-bit finalizer: every input bit affects every output bit. */
  static long mix(long v) {
    long h = v;
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    h *= 0xc4ceb9fe1a85ec53L;
    h ^= h >>> 33;
    return h;
  }
}
