package io.playline.core.config;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * One topic a Playline role needs, as it should be created when missing.
 *
 * @param name the topic's name
 * @param partitions partitions it is created with, and that an existing topic must have when
 *     {@code keyOrdered}
 * @param partitionsSetting the config key that sets {@code partitions}, whose range it is checked
 *     against and which errors name
 * @param replicationFactor replicas it is created with; empty for the brokers' {@code
 *     default.replication.factor}
 * @param keyOrdered true when consumers rely on one key's records staying in order on one
 *     partition, so an existing topic with another partition count is refused rather than used
 */
public record KafkaTopic(
    String name, int partitions, Setting<Integer> partitionsSetting, Optional<Short> replicationFactor,
    boolean keyOrdered) {

  private static final Pattern LEGAL_NAME = Pattern.compile("[a-zA-Z0-9._-]{1,249}");

  public KafkaTopic {
    if (!LEGAL_NAME.matcher(name).matches() || name.equals(".") || name.equals("..")) {
      throw new ConfigException("topic name: '" + name + "' (expected: 1-249 of [a-zA-Z0-9._-], not . or ..)");
    }
    partitionsSetting.check(partitions);
    replicationFactor.ifPresent(rf -> KafkaSettings.TOPIC_REPLICATION_FACTOR.check((int) rf));
  }

  /** The config key that sets {@code partitions}. */
  public String partitionsKey() {
    return partitionsSetting.key();
  }
}
