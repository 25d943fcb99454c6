/** Every read: point progress and the newest-first timeline, from Redis and, past it, from HBase. */
@NullMarked
package io.playline.core.query;

import org.jspecify.annotations.NullMarked;
