/** Kafka publishing: the write-back topic and the first-today topic. */
@NullMarked
package io.playline.core.publish;

import org.jspecify.annotations.NullMarked;
