/**
 * Real backend servers (Redis, Kafka, HBase) started by this process, for standalone mode and tests.
 *
 * <p>Every server here is the real thing: a {@code redis-server} child process, an in-process
 * Kafka KRaft broker+controller, an HBase master. Nothing is mocked. For fault tests and a local
 * multi-process topology, {@link io.playline.embedded.KafkaClusterProcesses} runs a Kafka cluster
 * with one JVM process per node and {@link io.playline.embedded.HBaseProcess} runs HBase in its
 * own JVM; those children never outlive the JVM that started them.
 */
@NullMarked
package io.playline.embedded;

import org.jspecify.annotations.NullMarked;
