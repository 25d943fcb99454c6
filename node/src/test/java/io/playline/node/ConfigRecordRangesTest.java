package io.playline.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.playline.core.config.ConfigException;
import io.playline.core.config.ConfigSource;
import io.playline.node.admin.AdminConfig;
import io.playline.node.edge.AddressLimitsConfig;
import io.playline.node.grpc.GrpcLimitsConfig;
import io.playline.node.push.PushConfig;
import java.time.Duration;
import java.util.Map;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/**
 * The node's config records hold a record built in code to the ranges of their settings: a value
 * just outside a key's range is refused with the key's name, a value at the bound is accepted.
 */
class ConfigRecordRangesTest {
  private static final Duration S = Duration.ofSeconds(1);

  private static void refused(String key, ThrowingCallable build) {
    assertThatThrownBy(build).isInstanceOf(ConfigException.class).hasMessageStartingWith(key + ": ");
  }

  private static AdminConfig admin(int max, int perAddress, Duration timeout) {
    return new AdminConfig("127.0.0.1", null, max, perAddress, timeout);
  }

  @Test
  void adminAccessHoldsTheAdminRanges() {
    assertThatCode(() -> admin(100_000, 100_000, Duration.ofMillis(100))).doesNotThrowAnyException();
    refused("admin.max.connections", () -> admin(100_001, 1, S));
    refused("admin.max.connections.per.address", () -> admin(1, 100_001, S));
    refused("admin.request.timeout", () -> admin(1, 1, Duration.ofMillis(99)));
    refused("admin.request.timeout", () -> admin(1, 1, Duration.ofMinutes(5).plusMillis(1)));
  }

  @Test
  void addressLimitsHoldEachKeysRange() {
    Duration day = Duration.ofHours(24);
    assertThatCode(() -> new AddressLimitsConfig(1, 1, Duration.ofHours(1), day, 1, 1, 1, S)).doesNotThrowAnyException();
    refused("connection.max.new.per.address.per.second", () -> new AddressLimitsConfig(1_000_001, 1, S, S, 1, 1, 1, S));
    refused("connection.max.new.per.address.burst", () -> new AddressLimitsConfig(1, 10_000_001, S, S, 1, 1, 1, S));
    refused("connection.abuse.penalty",
        () -> new AddressLimitsConfig(1, 1, Duration.ofHours(1).plusMillis(1), day, 1, 1, 1, S));
    refused("connection.abuse.penalty", () -> new AddressLimitsConfig(1, 1, Duration.ofMillis(-1), S, 1, 1, 1, S));
    refused("connection.abuse.penalty.max", () -> new AddressLimitsConfig(1, 1, S, day.plusMillis(1), 1, 1, 1, S));
    refused("connection.abuse.penalty.max", () -> new AddressLimitsConfig(1, 1, S, S.minusMillis(1), 1, 1, 1, S));
    refused("connection.max.tracked.addresses", () -> new AddressLimitsConfig(1, 1, S, S, 10_000_001, 1, 1, S));
    refused("connection.max.unproven.per.address", () -> new AddressLimitsConfig(1, 1, S, S, 1, 0, 1, S));
    refused("grpc.max.early.resets.per.address", () -> new AddressLimitsConfig(1, 1, S, S, 1, 1, 0, S));
    refused("grpc.rst.window", () -> new AddressLimitsConfig(1, 1, S, S, 1, 1, 1, Duration.ofMillis(999)));
  }

  @Test
  void theLongestPenaltyDefaultsToThePenaltyWhenThatIsLonger() {
    assertThat(AddressLimitsConfig.from(ConfigSource.load(null, Map.of())).abusePenaltyMax()).isEqualTo(Duration.ofMinutes(5));
    AddressLimitsConfig longPenalty =
        AddressLimitsConfig.from(ConfigSource.load(null, Map.of("connection.abuse.penalty", "10m")));
    assertThat(longPenalty.abusePenaltyMax()).isEqualTo(Duration.ofMinutes(10));
  }

  private static GrpcLimitsConfig grpc(int maxRst, Duration rstWindow, Duration firstStream) {
    return new GrpcLimitsConfig(100, Duration.ofSeconds(10), Duration.ZERO, Duration.ZERO, Duration.ZERO, maxRst,
        rstWindow, firstStream);
  }

  @Test
  void grpcLimitsHoldTheResetAndFirstStreamRanges() {
    assertThatCode(() -> grpc(1_000_000, Duration.ofHours(1), Duration.ofMillis(100))).doesNotThrowAnyException();
    refused("grpc.max.rst.frames.per.window", () -> grpc(1_000_001, S, S));
    refused("grpc.rst.window", () -> grpc(1, Duration.ofHours(1).plusSeconds(1), S));
    refused("grpc.rst.window", () -> grpc(1, Duration.ofMillis(1500), S));
    refused("grpc.first.stream.timeout", () -> grpc(1, S, Duration.ofMillis(99)));
    refused("grpc.keepalive.permit.time", () -> new GrpcLimitsConfig(100, Duration.ofMillis(999), Duration.ZERO,
        Duration.ZERO, Duration.ZERO, 1, S, S));
  }

  @Test
  void pushConfigHoldsTheRegistryTtlAndWindowRanges() {
    assertThatCode(() -> new PushConfig(Duration.ofMinutes(1), Duration.ofSeconds(10))).doesNotThrowAnyException();
    refused("push.registry.ttl", () -> new PushConfig(Duration.ZERO, Duration.ofSeconds(10).minusMillis(1)));
    refused("push.registry.ttl", () -> new PushConfig(Duration.ZERO, Duration.ofDays(1).plusMillis(1)));
    refused("sync.coalesce.window", () -> new PushConfig(Duration.ofMinutes(1).plusMillis(1), Duration.ofMinutes(10)));
    refused("push.lookup.cache", () -> new PushConfig(Duration.ZERO, Duration.ofMinutes(10),
        Duration.ofMinutes(10).plusMillis(1), Duration.ZERO));
  }
}
