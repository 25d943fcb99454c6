/**
 * The node's batched Redis write path, shared by the player edge and the internal API: {@link
 * io.playline.node.write.WriteBatcher} batches {@link io.playline.node.write.PendingWrite}s into
 * one round trip each, answers first-today, and tells an {@link
 * io.playline.node.write.AppliedListener} (progress push) which records moved.
 */
@NullMarked
package io.playline.node.write;

import org.jspecify.annotations.NullMarked;
