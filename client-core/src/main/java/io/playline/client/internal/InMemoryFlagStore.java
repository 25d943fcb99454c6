package io.playline.client.internal;

import io.playline.client.FlagStore;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** {@link FlagStore} in a map; forgotten when the process ends. Thread-safe. */
public final class InMemoryFlagStore implements FlagStore {
  private final Map<Long, String> dates = new ConcurrentHashMap<>();

  @Override
  public String load(long uid) {
    return dates.getOrDefault(uid, "");
  }

  @Override
  public void store(long uid, String flagDate) {
    dates.put(uid, flagDate);
  }
}
