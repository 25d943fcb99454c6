/**
 * The heavy-user benchmark, {@code bin/playline bench heavy} ({@link io.playline.bench.heavy.HeavyCommand}):
 * one user with a long stored history, live cells against rolled-up chunks, next to an ordinary user.
 */
@NullMarked
package io.playline.bench.heavy;

import org.jspecify.annotations.NullMarked;
