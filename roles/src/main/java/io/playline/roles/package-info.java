/**
 * The production roles, each a process against external Redis, Kafka and HBase: {@code gateway}
 * (the player edge on a node), {@code api} (the internal API on a node) and {@code job}; what they
 * share (backend addresses, health, meters, secrets). Commands: {@code io.playline.roles.cli}.
 */
@NullMarked
package io.playline.roles;

import org.jspecify.annotations.NullMarked;
