package io.playline.node.loops;

import io.netty.util.concurrent.FastThreadLocal;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A fixed set of counters that the node's loops add to per frame or per heartbeat without sharing a
 * cache line or a locked instruction. Each thread that adds to any of them is numbered once, in
 * turn, on its first add; the process's first {@value #OWNED} threads to add own a stripe of each
 * instance's counters (made on their first add to it), which only they write (plain additions,
 * published with opaque writes that are never torn), and any later thread adds atomically into
 * one shared stripe. A node's loops start adding as its first connections come, so each owns its
 * stripes. A read sums the stripes. What a Micrometer counter costs per increment (a
 * compare-and-set into cells the loops share) is what a heartbeat should not pay. Thread-safe; for
 * adds of zero or more, a read may miss adds in flight but never counts one twice or goes back.
 */
public final class LoopCounters {
  /** Threads that may own a stripe: a node's loops, and room to spare. */
  static final int OWNED = 64;
  /** Slots before and after a stripe's counters, so that two stripes' counters never share a cache line. */
  private static final int PAD = 8;

  private final int size;
  /** Stripe {@code k} of the thread numbered {@code k}, null until its first add; then the shared one. */
  private final AtomicReferenceArray<AtomicLongArray> stripes = new AtomicReferenceArray<>(OWNED + 1);
  /** Threads numbered so far, at most {@link #OWNED}: every later one shares the last stripe. */
  private static final AtomicInteger NUMBERED = new AtomicInteger();
  /** Each adding thread's number, given on its first add (on a Netty loop: one array slot to read). */
  private static final FastThreadLocal<Integer> THREAD_NUMBER = new FastThreadLocal<>() {
    @Override
    protected Integer initialValue() {
      return NUMBERED.getAndUpdate(n -> n < OWNED ? n + 1 : n);
    }
  };

  /** @param size counters, numbered from 0 */
  public LoopCounters(int size) {
    if (size < 1) {
      throw new IllegalArgumentException("size must be at least 1: " + size);
    }
    this.size = size;
    stripes.set(OWNED, stripe());
  }

  /** Adds {@code n} to counter {@code i}. */
  public void add(int i, long n) {
    int slot = PAD + i;
    int thread = THREAD_NUMBER.get();
    if (thread < OWNED) {
      AtomicLongArray mine = own(thread); // this thread is its only writer
      mine.setOpaque(slot, mine.getPlain(slot) + n);
    } else {
      stripes.getAcquire(OWNED).getAndAdd(slot, n);
    }
  }

  /** Adds {@code n} to counter {@code i} and {@code m} to counter {@code j} (one thread-number lookup). */
  public void add(int i, long n, int j, long m) {
    int a = PAD + i;
    int b = PAD + j;
    int thread = THREAD_NUMBER.get();
    if (thread < OWNED) {
      AtomicLongArray mine = own(thread);
      mine.setOpaque(a, mine.getPlain(a) + n);
      mine.setOpaque(b, mine.getPlain(b) + m);
    } else {
      AtomicLongArray shared = stripes.getAcquire(OWNED);
      shared.getAndAdd(a, n);
      shared.getAndAdd(b, m);
    }
  }

  /** The calling thread's own stripe, made on its first add and published to readers. */
  private AtomicLongArray own(int thread) {
    AtomicLongArray mine = stripes.getPlain(thread);
    if (mine == null) {
      mine = stripe();
      stripes.setRelease(thread, mine);
    }
    return mine;
  }

  private AtomicLongArray stripe() {
    return new AtomicLongArray(PAD + size + PAD);
  }

  /** Counter {@code i}'s total so far. */
  public long sum(int i) {
    long total = 0;
    for (int k = 0; k <= OWNED; k++) {
      AtomicLongArray stripe = stripes.getAcquire(k);
      if (stripe != null) {
        total += stripe.get(PAD + i);
      }
    }
    return total;
  }

  /** Every counter's total so far, indexed as added. */
  public long[] sums() {
    long[] out = new long[size];
    for (int k = 0; k <= OWNED; k++) {
      AtomicLongArray stripe = stripes.getAcquire(k);
      if (stripe != null) {
        for (int i = 0; i < size; i++) {
          out[i] += stripe.get(PAD + i);
        }
      }
    }
    return out;
  }

  /** How many counters this holds. */
  public int size() {
    return size;
  }
}
