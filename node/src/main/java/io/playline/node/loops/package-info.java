/**
 * The one pair of event loop groups a node's servers share ({@link
 * io.playline.node.loops.EventLoops}); at the bottom of the node runtime, below every server. And
 * the counters those loops add to per frame without contending ({@link
 * io.playline.node.loops.LoopCounters}).
 */
@NullMarked
package io.playline.node.loops;

import org.jspecify.annotations.NullMarked;
