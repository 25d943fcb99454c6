/**
 * The production topology on one machine: {@link io.playline.topology.LocalTopology} starts a
 * Redis Cluster, a Kafka cluster, HBase and the roles, every one a real process on loopback, for
 * {@code bin/playline topology} and for the fault tests. A leaf module: nothing depends on it.
 */
@NullMarked
package io.playline.topology;

import org.jspecify.annotations.NullMarked;
