/**
 * The topics the roles create or check at start-up ({@link io.playline.core.kafka.KafkaTopics});
 * what each topic and each Kafka client is configured with (Playline's own settings plus the
 * operator's pass-through, e.g. TLS and SASL) is read in {@code io.playline.core.config}.
 */
@NullMarked
package io.playline.core.kafka;

import org.jspecify.annotations.NullMarked;
