package io.playline.job.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.playline.core.config.ConfigException;
import io.playline.core.config.ConfigSource;
import io.playline.core.config.CoreConfig;
import io.playline.proto.v1.Business;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JobConfigTest {

  private static JobConfig from(Map<String, String> settings) {
    ConfigSource source = ConfigSource.empty().with(settings);
    return JobConfig.from(source, CoreConfig.from(source));
  }

  @Test
  void defaultsFollowTheSpec() {
    JobConfig c = JobConfig.defaults();
    assertThat(c.groupId()).isEqualTo("playline-job");
    assertThat(c.table().getNameAsString()).isEqualTo("playline:history");
    assertThat(c.family()).isEqualTo("h");
    assertThat(c.retention()).isEqualTo(Duration.ofDays(90));
    assertThat(c.retentionOverrides()).isEmpty();
    assertThat(c.recoveryInterval()).isEqualTo(Duration.ofSeconds(30));
    assertThat(c.recoveryAge()).isEqualTo(CoreConfig.defaults().flushInterval().multipliedBy(3));
  }

  @Test
  void perBusinessRetentionIsKeptForReadersAndTheFamilyTtlIsTheLongest() {
    JobConfig c = from(Map.of("history.retention.live", "7d", "history.retention.article", "400d"));
    assertThat(c.retention(Business.LIVE)).isEqualTo(Duration.ofDays(7));
    assertThat(c.retention(Business.VIDEO)).isEqualTo(Duration.ofDays(90));
    assertThat(c.maxRetention()).isEqualTo(Duration.ofDays(400));
    assertThat(from(Map.of("history.retention.live", "7d")).maxRetention()).isEqualTo(Duration.ofDays(90));
  }

  @Test
  void misspelledBusinessRetentionStopsStartUp() {
    assertThatThrownBy(() -> from(Map.of("history.retention.vidoe", "7d")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("history.retention.vidoe");
  }

  @Test
  void recoveryAgeDefaultsToThreeFlushesAndMayNotBeShorterThanOne() {
    assertThat(from(Map.of("writeback.flush.interval", "10s")).recoveryAge()).isEqualTo(Duration.ofSeconds(30));
    assertThatThrownBy(() -> from(Map.of("writeback.flush.interval", "10s", "recovery.age", "5s")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("recovery.age");
  }

  @Test
  void leaseTtlDefaultsToThreeIntervalsAndMustOutlastOne() {
    assertThat(from(Map.of("recovery.interval", "10s")).recoveryLeaseTtl()).isEqualTo(Duration.ofSeconds(30));
    assertThat(from(Map.of("job.instance.id", "job-7")).instanceId()).isEqualTo("job-7");
    assertThat(JobConfig.defaults().instanceId()).isNotBlank();
    assertThatThrownBy(() -> from(Map.of("recovery.interval", "10s", "recovery.lease.ttl", "10s")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("recovery.lease.ttl: PT10S")
        .hasMessageContaining("recovery.interval");
  }

  @Test
  void outOfRangeValuesNameTheirKey() {
    assertThatThrownBy(() -> from(Map.of("job.max.poll.records", "0")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("job.max.poll.records");
    assertThatThrownBy(() -> from(Map.of("job.retry.backoff.base", "5s", "job.retry.backoff.cap", "1s")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("job.retry.backoff.cap");
    assertThatThrownBy(() -> from(Map.of("hbase.table", "bad name!")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("hbase.table");
  }
}
