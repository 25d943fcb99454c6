/**
 * Real backend servers (Redis, Kafka, HBase) started by this process, for standalone mode and tests.
 *
 * <p>Every server here is the real thing: a {@code redis-server} child process, an in-process
 * Kafka KRaft broker+controller, an HBase master. Nothing is mocked.
 */
@NullMarked
package io.playline.embedded;

import org.jspecify.annotations.NullMarked;
