/**
 * The history core's assembly: {@link io.playline.core.HistoryCore} wires, from one {@link
 * io.playline.core.config.CoreConfig}, the process's Redis client, Kafka producer, write-through
 * writer, write-back aggregator and first-today publisher (and, once attached, the read paths over
 * HBase), and closes them in order. It uses the subpackages and none uses it back: what they share
 * (the typed config and the keys it is read from) is in {@code config/}.
 */
@NullMarked
package io.playline.core;

import org.jspecify.annotations.NullMarked;
