package io.playline.testing;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Makes short identifiers unique within this JVM (a counter) and unlikely to repeat across runs
 * (random bits); safe in Redis keys, Kafka topic and group names, and HBase namespaces.
 */
final class UniqueIds {

  private static final AtomicLong SEQUENCE = new AtomicLong();

  private UniqueIds() {}

  /** Returns a new id of lowercase hex digits, e.g. {@code "3f09a2c1"} followed by a counter. */
  static String next() {
    return String.format("%08x%x", ThreadLocalRandom.current().nextInt(), SEQUENCE.incrementAndGet());
  }
}
