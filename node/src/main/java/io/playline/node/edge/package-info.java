/**
 * Who may connect to a node's listeners and how much they may spend before being served: TCP
 * connection caps per node and per address ({@link io.playline.node.edge.ConnectionLimiter}), new
 * connections per address and abuse penalties ({@link io.playline.node.edge.AddressBudgets}), the
 * PROXY protocol from trusted balancers, and the keys that set them ({@link
 * io.playline.node.edge.EdgeSettings}).
 */
@NullMarked
package io.playline.node.edge;

import org.jspecify.annotations.NullMarked;
