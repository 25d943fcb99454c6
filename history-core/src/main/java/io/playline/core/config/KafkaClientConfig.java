package io.playline.core.config;

import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.config.ConfigDef;

/**
 * The Kafka client properties an operator passes through Playline's config, e.g. TLS and SASL:
 * {@code kafka.common.<property>} applies to every Kafka client Playline creates (producer,
 * consumer, admin) that knows the property, and {@code kafka.producer.<property>}, {@code
 * kafka.consumer.<property>}, {@code kafka.admin.<property>} to that client only; the more
 * specific wins. {@code <property>} is the Kafka client's own name ({@code
 * kafka.common.security.protocol=SASL_SSL}, env {@code PLAYLINE_KAFKA_COMMON_SECURITY_PROTOCOL}).
 *
 * <p>Playline's own keys under those prefixes ({@code kafka.producer.linger}, {@code
 * kafka.admin.timeout}, ...) keep their meaning and are not passed through. Anything else must be a
 * property of that client (of at least one client for {@code kafka.common.}), with a value of the
 * right type, and not one Playline sets for correctness ({@link KafkaClient} lists those and why):
 * otherwise construction throws a {@link ConfigException} naming the key, so a typo stops start-up
 * instead of being ignored.
 *
 * <p>Every Kafka client Playline creates gets its properties from {@link #build}. Immutable and
 * thread-safe.
 *
 * @param common pass-through for every client, by Kafka property name
 * @param producer pass-through for the producer
 * @param consumer pass-through for the job's consumer
 * @param admin pass-through for admin clients (topic set-up, health probes)
 */
public record KafkaClientConfig(
    Map<String, String> common,
    Map<String, String> producer,
    Map<String, String> consumer,
    Map<String, String> admin) {

  /** The prefix of the properties every client gets. */
  public static final String COMMON_PREFIX = KafkaSettings.COMMON.key();

  public KafkaClientConfig {
    common = Map.copyOf(common);
    producer = Map.copyOf(producer);
    consumer = Map.copyOf(consumer);
    admin = Map.copyOf(admin);
    common.forEach(KafkaClientConfig::checkCommon);
    producer.forEach((name, value) -> check(KafkaClient.PRODUCER, name, value));
    consumer.forEach((name, value) -> check(KafkaClient.CONSUMER, name, value));
    admin.forEach((name, value) -> check(KafkaClient.ADMIN, name, value));
  }

  /** Reads the pass-through from {@code c}, skipping Playline's own keys under the prefixes. */
  public static KafkaClientConfig from(ConfigSource c) {
    return new KafkaClientConfig(KafkaSettings.COMMON.read(c), passThrough(c, KafkaClient.PRODUCER),
        passThrough(c, KafkaClient.CONSUMER), passThrough(c, KafkaClient.ADMIN));
  }

  /** No pass-through: the clients get Playline's settings only. */
  public static KafkaClientConfig none() {
    return new KafkaClientConfig(Map.of(), Map.of(), Map.of(), Map.of());
  }

  private static Map<String, String> passThrough(ConfigSource c, KafkaClient client) {
    Map<String, String> found = new TreeMap<>(client.passThrough().read(c));
    found.keySet().removeIf(client::isPlaylineKey);
    return found;
  }

  /** The pass-through {@code client} gets: the common properties it knows, then its own on top. */
  public Map<String, String> passThrough(KafkaClient client) {
    Map<String, String> merged = new TreeMap<>();
    common.forEach((name, value) -> {
      if (client.knows(name)) {
        merged.put(name, value);
      }
    });
    merged.putAll(specific(client));
    return merged;
  }

  /**
   * The properties of a {@code client} for {@code bootstrapServers}: {@code playline}'s (the
   * caller's settings, which must not name {@code bootstrap.servers}), then the pass-through on
   * top. The pass-through can only override what Playline sets as a tunable default (e.g. {@code
   * compression.type}): what Playline needs is refused at construction. Returns a new mutable map.
   *
   * @throws IllegalArgumentException when {@code bootstrapServers} is blank
   */
  public Map<String, Object> build(KafkaClient client, String bootstrapServers, Map<String, ?> playline) {
    if (bootstrapServers.isBlank()) {
      throw new IllegalArgumentException(
          "bootstrapServers: '" + bootstrapServers + "' (expected: host:port[,host:port])");
    }
    if (playline.containsKey("bootstrap.servers")) {
      throw new IllegalArgumentException("playline: names bootstrap.servers (expected: passed as bootstrapServers)");
    }
    Map<String, Object> p = new HashMap<>(playline);
    p.put("bootstrap.servers", bootstrapServers);
    p.putAll(passThrough(client));
    return p;
  }

  private Map<String, String> specific(KafkaClient client) {
    return switch (client) {
      case PRODUCER -> producer;
      case CONSUMER -> consumer;
      case ADMIN -> admin;
    };
  }

  private static void check(KafkaClient client, String name, String value) {
    String key = client.prefix() + name;
    if (client.isPlaylineKey(name)) {
      throw new IllegalArgumentException(key + " is a Playline key, not a pass-through");
    }
    if (!client.knows(name)) {
      throw rejected(key, value, "a Playline key or a property of the Kafka " + client + " client; '" + name
          + "' is neither (a typo?)");
    }
    String refusal = client.refusal(name);
    if (refusal != null) {
      throw rejected(key, value, "not set through pass-through: Playline sets " + name + " for the " + client
          + " itself (" + refusal + ")");
    }
    checkValue(client, key, name, value);
  }

  private static void checkCommon(String name, String value) {
    String key = COMMON_PREFIX + name;
    Map<KafkaClient, String> refusals = new EnumMap<>(KafkaClient.class);
    boolean known = false;
    for (KafkaClient client : KafkaClient.values()) {
      if (client.knows(name)) {
        known = true;
        String refusal = client.refusal(name);
        if (refusal != null) {
          refusals.put(client, refusal);
        } else {
          checkValue(client, key, name, value);
        }
      }
    }
    if (!known) {
      throw rejected(key, value, "a property of a Kafka producer, consumer or admin client; '" + name
          + "' is none (a typo?)");
    }
    if (!refusals.isEmpty()) {
      throw rejected(key, value, "not set through pass-through: Playline sets " + name + " itself for " + refusals
          + "; set it per client (kafka.<client>." + name + ") for the others");
    }
  }

  private static void checkValue(KafkaClient client, String key, String name, String value) {
    ConfigDef.ConfigKey def = client.kafkaDef().configKeys().get(name);
    if (def == null) {
      return;
    }
    try {
      Object parsed = ConfigDef.parseType(name, value, def.type);
      if (def.validator != null) {
        def.validator.ensureValid(name, parsed);
      }
    } catch (org.apache.kafka.common.config.ConfigException e) {
      // A PASSWORD-typed property (a key store's PEM key, a password) is never echoed back.
      throw rejected(key, def.type == ConfigDef.Type.PASSWORD ? "[hidden]" : value,
          "a valid " + name + " for the Kafka " + client + " client: " + e.getMessage());
    }
  }

  private static ConfigException rejected(String key, String value, String expected) {
    boolean secret = key.contains("password") || key.contains("jaas") || key.contains("secret");
    return new ConfigException(key + ": '" + (secret ? "[hidden]" : value) + "' (expected: " + expected
        + "; env " + ConfigSource.envName(key) + ")");
  }
}
