/**
 * The node-wide keys ({@link io.playline.node.settings.NodeSettings}: node id, threads, bind
 * address, admin port, TLS, PROXY protocol), read by the node's parts and by {@code NodeConfig}.
 */
@NullMarked
package io.playline.node.settings;

import org.jspecify.annotations.NullMarked;
