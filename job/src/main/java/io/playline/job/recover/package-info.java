/**
 * Crash recovery: the periodic sweep of old write-back recovery marks, split between the running
 * job instances by shard leases in Redis.
 */
@NullMarked
package io.playline.job.recover;

import org.jspecify.annotations.NullMarked;
