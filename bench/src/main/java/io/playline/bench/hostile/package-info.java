/**
 * Hostile clients for {@code bin/playline bench hostile}: each {@link io.playline.bench.hostile.Attacker}
 * spends one resource of a node the way an attacker would (HTTP/2 rapid reset, WebSocket pings
 * before auth, idle HTTP/2 connections, slowloris, tombstones, one user's writes, session churn),
 * only towards 127.0.0.0/8, bounded in connections, operations and time, and counts how fast the
 * node cut it off or throttled it ({@link io.playline.bench.hostile.AttackStats}).
 */
@NullMarked
package io.playline.bench.hostile;

import org.jspecify.annotations.NullMarked;
