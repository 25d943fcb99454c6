/**
 * Kafka plumbing every role shares: the properties each Kafka client is built with (Playline's own
 * settings plus the operator's pass-through, e.g. TLS and SASL), and the topics the roles create
 * or check at start-up.
 */
@NullMarked
package io.playline.core.kafka;

import org.jspecify.annotations.NullMarked;
