package io.playline.gateway.stream;

/**
 * Who is on a connection, fixed at auth: no later frame changes or re-checks it.
 *
 * @param uid the authenticated user
 * @param sessionId the server-side session id handed out in AuthOk
 * @param deviceId the client's device id (may be empty)
 * @param platform the client's platform (may be empty)
 */
public record ConnectionIdentity(long uid, String sessionId, String deviceId, String platform) {}
