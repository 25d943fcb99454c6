package io.playline.embedded;

import java.io.IOException;

/**
 * A check that a readiness wait runs before each probe, to give up at once rather than at its
 * deadline, e.g. because the server's process has exited.
 */
@FunctionalInterface
interface StillStarting {

  /** A check that never fails: for servers in this JVM. */
  StillStarting ALWAYS = () -> {};

  /** Throws, explaining why, if waiting any longer is pointless. */
  void check() throws IOException;
}
