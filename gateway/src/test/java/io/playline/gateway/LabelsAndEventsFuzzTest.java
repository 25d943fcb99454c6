package io.playline.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.playline.core.write.EventRules;
import io.playline.node.write.EventRecords;
import io.playline.node.errors.ClientLabels;
import io.playline.proto.v1.HistoryRecord;
import io.playline.proto.v1.PlayEvent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Fuzzes the checks every player frame and every {@code Report} goes through before anything is
 * stored: the device and platform labels ({@link ClientLabels}) and the events of a heartbeat
 * ({@link EventRecords}, {@link EventRules}), against an oracle written from the documented
 * limits. Accepted events become records whose view time lies inside the clamp window around
 * server time, whatever time the client claimed.
 *
 * <p>Regression mode (every build) replays the seeds in {@code LabelsAndEventsFuzzTestInputs};
 * {@code bin/fuzz} fuzzes (docs/security.md, "Fuzzing").
 */
class LabelsAndEventsFuzzTest {
  private static final int MAX_DEVICE = 64;
  private static final int MAX_PLATFORM = 32;
  private static final int MAX_EVENTS = 6;
  private static final Duration PAST = Duration.ofDays(3);
  private static final Duration FUTURE = Duration.ofMinutes(5);

  @FuzzTest(maxExecutions = 2_000_000)
  void labels(FuzzedDataProvider data) {
    String device = data.consumeString(100);
    String platform = data.consumeString(60);
    String problem = ClientLabels.problem(device, platform, MAX_DEVICE, MAX_PLATFORM);
    int deviceBytes = device.getBytes(StandardCharsets.UTF_8).length;
    int platformBytes = platform.getBytes(StandardCharsets.UTF_8).length;
    if (deviceBytes > MAX_DEVICE) {
      assertThat(problem).startsWith("device_id: " + deviceBytes + " bytes");
    } else if (platformBytes > MAX_PLATFORM) {
      assertThat(problem).startsWith("platform: " + platformBytes + " bytes");
    } else {
      assertThat(problem).isNull();
    }
  }

  @FuzzTest(maxExecutions = 2_000_000)
  void events(FuzzedDataProvider data) {
    List<PlayEvent> events = new ArrayList<>();
    int n = data.consumeInt(0, MAX_EVENTS + 2);
    for (int i = 0; i < n; i++) {
      events.add(PlayEvent.newBuilder()
          .setBusinessValue(data.consumeBoolean() ? data.consumeInt(0, 7) : data.consumeInt())
          .setOid(data.consumeBoolean() ? data.consumeLong(-1, 3) : data.consumeLong())
          .setSubId(data.consumeBoolean() ? data.consumeLong(-1, 1) : data.consumeLong())
          .setProgressMs(data.consumeBoolean() ? data.consumeLong(-2, 1) : data.consumeLong())
          .setDurationMs(data.consumeBoolean() ? data.consumeLong(-1, 1) : data.consumeLong())
          .setEventTimeMs(data.consumeLong())
          .build());
    }
    String problem = EventRecords.problem(events, MAX_EVENTS);
    String expected = events.size() > MAX_EVENTS ? "events: " + events.size() : null;
    for (int i = 0; expected == null && i < events.size(); i++) {
      PlayEvent e = events.get(i);
      String field = e.getBusinessValue() < 1 || e.getBusinessValue() > 6 ? "business"
          : e.getOid() <= 0 ? "oid"
          : e.getSubId() < 0 ? "sub_id"
          : e.getProgressMs() < -1 ? "progress_ms"
          : e.getDurationMs() < 0 ? "duration_ms" : null;
      expected = field == null ? null : "events[" + i + "]." + field + ": ";
    }
    if (expected == null) {
      assertThat(problem).isNull();
      long now = System.currentTimeMillis();
      List<HistoryRecord> records = EventRecords.build(7, "d", "p", events, now, new EventRules(PAST, FUTURE));
      assertThat(records).hasSameSizeAs(events);
      for (HistoryRecord r : records) {
        assertThat(r.getViewTimeMs()).isBetween(now - PAST.toMillis(), now + FUTURE.toMillis());
      }
    } else {
      assertThat(problem).startsWith(expected);
    }
  }
}
