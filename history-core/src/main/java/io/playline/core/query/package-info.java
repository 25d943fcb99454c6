/**
 * Every read and user control of one user's history: point progress and the newest-first timeline,
 * from Redis and, past it, from HBase; delete, clear and pause. {@link
 * io.playline.core.query.HistoryService} is the API every transport calls; {@link
 * io.playline.core.query.TieredHistoryService} implements it.
 */
@NullMarked
package io.playline.core.query;

import org.jspecify.annotations.NullMarked;
