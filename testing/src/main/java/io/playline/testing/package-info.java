/**
 * JUnit 5 extensions that start one real Redis, Kafka or HBase server per test JVM and hand each
 * test an isolated namespace on it (a key prefix, fresh topics, a fresh table namespace).
 */
@NullMarked
package io.playline.testing;

import org.jspecify.annotations.NullMarked;
