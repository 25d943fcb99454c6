package io.playline.testing;

import io.playline.proto.v1.Auth;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.ClearHistory;
import io.playline.proto.v1.ClientFrame;
import io.playline.proto.v1.DeleteItems;
import io.playline.proto.v1.Heartbeat;
import io.playline.proto.v1.HistoryQuery;
import io.playline.proto.v1.ItemKey;
import io.playline.proto.v1.PlayEvent;
import io.playline.proto.v1.ProgressQuery;
import io.playline.proto.v1.Refresh;
import java.util.List;

/**
 * The player's {@link ClientFrame}s as tests send them, so a test names only what differs: a seq,
 * a token, a device. An empty string leaves a field unset (proto3 cannot tell them apart).
 * Stateless; callable from any thread.
 */
public final class Frames {

  /** The device of {@link #auth(long, String)}. */
  public static final String DEVICE = "phone-1";
  /** The platform of {@link #auth(long, String)}. */
  public static final String PLATFORM = "android";
  /** The item length of {@link #event(long, long, long)}: ten minutes. */
  public static final long DURATION_MS = 600_000;

  private Frames() {}

  /** Authenticates as the token's user from {@link #DEVICE} on {@link #PLATFORM}. */
  public static ClientFrame auth(long seq, String token) {
    return auth(seq, token, DEVICE, PLATFORM);
  }

  /** Authenticates from {@code device}, no platform. */
  public static ClientFrame auth(long seq, String token, String device) {
    return auth(seq, token, device, "");
  }

  public static ClientFrame auth(long seq, String token, String device, String platform) {
    return ClientFrame.newBuilder().setSeq(seq)
        .setAuth(Auth.newBuilder().setToken(token).setDeviceId(device).setPlatform(platform)).build();
  }

  /** Resumes session {@code sessionId} without a token. */
  public static ClientFrame resume(long seq, String sessionId, String device) {
    return resume(seq, "", sessionId, device);
  }

  public static ClientFrame resume(long seq, String token, String sessionId, String device) {
    return ClientFrame.newBuilder().setSeq(seq)
        .setAuth(Auth.newBuilder().setToken(token).setSessionId(sessionId).setDeviceId(device)).build();
  }

  /** A heartbeat without events: the connection's keep-alive. */
  public static ClientFrame keepAlive(long seq) {
    return ClientFrame.newBuilder().setSeq(seq).setHeartbeat(Heartbeat.getDefaultInstance()).build();
  }

  public static ClientFrame heartbeat(long seq, PlayEvent... events) {
    return heartbeat(seq, "", events);
  }

  /** A heartbeat that echoes {@code flagDate}, the last one the server handed out. */
  public static ClientFrame heartbeat(long seq, String flagDate, PlayEvent... events) {
    return ClientFrame.newBuilder().setSeq(seq)
        .setHeartbeat(Heartbeat.newBuilder().setFlagDate(flagDate).addAllEvents(List.of(events))).build();
  }

  /** A video of {@link #DURATION_MS}, played to {@code progressMs}. */
  public static PlayEvent event(long oid, long progressMs, long eventTimeMs) {
    return event(Business.VIDEO, oid, progressMs, DURATION_MS, eventTimeMs);
  }

  public static PlayEvent event(Business business, long oid, long progressMs, long durationMs, long eventTimeMs) {
    return PlayEvent.newBuilder().setBusiness(business).setOid(oid).setProgressMs(progressMs)
        .setDurationMs(durationMs).setEventTimeMs(eventTimeMs).build();
  }

  public static ItemKey video(long oid) {
    return ItemKey.newBuilder().setBusiness(Business.VIDEO).setOid(oid).build();
  }

  public static ClientFrame progressQuery(long seq, ItemKey... items) {
    return ClientFrame.newBuilder().setSeq(seq)
        .setProgressQuery(ProgressQuery.newBuilder().addAllItems(List.of(items))).build();
  }

  public static ClientFrame historyQuery(long seq, int limit) {
    return ClientFrame.newBuilder().setSeq(seq).setHistoryQuery(HistoryQuery.newBuilder().setLimit(limit)).build();
  }

  public static ClientFrame delete(long seq, ItemKey... items) {
    return ClientFrame.newBuilder().setSeq(seq).setDelete(DeleteItems.newBuilder().addAllItems(List.of(items))).build();
  }

  public static ClientFrame clear(long seq, Business... businesses) {
    return ClientFrame.newBuilder().setSeq(seq)
        .setClear(ClearHistory.newBuilder().addAllBusinesses(List.of(businesses))).build();
  }

  public static ClientFrame refresh(long seq, String token) {
    return ClientFrame.newBuilder().setSeq(seq).setRefresh(Refresh.newBuilder().setToken(token)).build();
  }
}
