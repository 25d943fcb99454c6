/**
 * The one pair of event loop groups a node's servers share ({@link
 * io.playline.node.loops.EventLoops}); at the bottom of the node runtime, below every server.
 */
@NullMarked
package io.playline.node.loops;

import org.jspecify.annotations.NullMarked;
