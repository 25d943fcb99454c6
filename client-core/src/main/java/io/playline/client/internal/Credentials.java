package io.playline.client.internal;

import io.playline.client.PlaylineException;
import io.playline.proto.lite.v1.Auth;
import io.playline.proto.lite.v1.AuthOk;
import io.playline.proto.lite.v1.Error.Code;
import org.jspecify.annotations.Nullable;

/**
 * What the client authenticates with: the server-side session to resume, or else a token fetched
 * for this attempt (forgotten once a connection is authenticated, never logged). Decides the
 * {@code Auth} frame and what a rejection means for the next attempt.
 *
 * <p>Confined to the client's loop.
 */
final class Credentials {
  private final String deviceId;
  private final String platform;
  private @Nullable String sessionId;
  private @Nullable String token;
  private long uid;
  private boolean resuming;

  Credentials(String deviceId, String platform) {
    this.deviceId = deviceId;
    this.platform = platform;
  }

  /** Whether the next attempt needs a token from the supplier (no session to resume, no token held). */
  boolean needsToken() {
    return sessionId == null && token == null;
  }

  void tokenFetched(String value) {
    token = value;
  }

  /** The user of the last authenticated connection, 0 before the first. */
  long uid() {
    return uid;
  }

  /** The Auth body: resume the session when there is one (no token), else present the token. */
  Auth.Builder auth(String flagDate) {
    String resumeId = sessionId;
    resuming = resumeId != null;
    Auth.Builder auth = Auth.newBuilder().setDeviceId(deviceId).setPlatform(platform).setFlagDate(flagDate);
    if (resumeId != null) {
      auth.setSessionId(resumeId);
    } else {
      auth.setToken(token == null ? "" : token);
    }
    return auth;
  }

  /** The connection is authenticated; returns whether it resumed the session. */
  boolean authenticated(AuthOk ok) {
    token = null; // needed again only if the session cannot be resumed
    sessionId = ok.getSessionId().isEmpty() ? null : ok.getSessionId();
    uid = ok.getUid();
    return resuming;
  }

  /**
   * The gateway refused the Auth; returns true when the next attempt should follow at once with
   * a fresh token (the session could not be resumed), false when it should back off.
   */
  boolean rejected(PlaylineException error) {
    if (resuming && (error.code() == Code.SESSION_EXPIRED || error.code() == Code.UNAUTHENTICATED)) {
      sessionId = null;
      return true;
    }
    if (error.code() == Code.UNAUTHENTICATED) {
      token = null; // this token will not do; the next attempt asks for a fresh one
    }
    return false;
  }

  /** The session cannot be resumed (its token expired or was refused): the next attempt needs a token. */
  void forgetSession() {
    sessionId = null;
  }

  /** The session id, shortened for logs (possession is the credential). */
  String shortSessionId() {
    String id = sessionId;
    return id == null ? "-" : id.substring(0, Math.min(8, id.length())) + "…";
  }
}
