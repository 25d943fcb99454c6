package io.playline.api.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.playline.core.config.ConfigException;
import io.playline.core.config.ConfigSource;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ApiConfigTest {
  private static final String KEY = "api-access-test-secret-0123456789-abcdef";

  @Test
  void bindsApiBindHostElseTheSharedBindHost() {
    assertThat(ApiConfig.from(ConfigSource.empty().with(Map.of("bind.host", "10.0.0.1")), KEY, "").bindHost())
        .isEqualTo("10.0.0.1");
    assertThat(ApiConfig.from(ConfigSource.empty().with(Map.of("bind.host", "0.0.0.0", "api.bind.host", "10.1.2.3")),
        KEY, "").bindHost()).isEqualTo("10.1.2.3");
    assertThat(ApiConfig.from(ConfigSource.empty(), KEY, "").bindHost()).isEqualTo("0.0.0.0");
  }

  @Test
  void refusesAShortKeyAndThePlayerTokenKey() {
    assertThatThrownBy(() -> ApiConfig.from(ConfigSource.empty(), "short", ""))
        .isInstanceOf(ConfigException.class).hasMessageContaining("api.secret: 5 bytes");
    assertThatThrownBy(() -> ApiConfig.from(ConfigSource.empty(), KEY, KEY))
        .isInstanceOf(ConfigException.class).hasMessageContaining("the same key as auth.secret");
    assertThat(new ApiConfig(KEY, "127.0.0.1").toString()).doesNotContain(KEY);
  }

  @Test
  void holdsARecordBuiltInCodeToTheSettingsRanges() {
    ApiHttpConfig http = ApiHttpConfig.anyPort();
    assertThatThrownBy(() -> new ApiConfig(KEY, "127.0.0.1", 0, 10_000_001, 1, 1, http))
        .isInstanceOf(ConfigException.class).hasMessageStartingWith("api.max.connections: ");
    assertThatThrownBy(() -> new ApiConfig(KEY, "127.0.0.1", 0, 1, 10_000_001, 1, http))
        .isInstanceOf(ConfigException.class).hasMessageStartingWith("api.max.connections.per.address: ");
    assertThatThrownBy(() -> new ApiConfig(KEY, "127.0.0.1", 0, 1, 1, 0, http))
        .isInstanceOf(ConfigException.class).hasMessageStartingWith("api.max.rst.frames.per.window: ");
    assertThatThrownBy(() -> new ApiHttpConfig(true, 0, 1, 1, Duration.ofSeconds(1), 1_025, Duration.ofSeconds(1)))
        .isInstanceOf(ConfigException.class).hasMessageStartingWith("api.http.max.pipelined: ");
    assertThatThrownBy(() -> new ApiHttpConfig(true, 0, 1_000_001, 1, Duration.ofSeconds(1), 1, Duration.ofSeconds(1)))
        .isInstanceOf(ConfigException.class).hasMessageStartingWith("api.http.max.connections: ");
  }
}
