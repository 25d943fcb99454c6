package io.playline.client;

import io.playline.proto.v1.PlayEvent;

/**
 * One reported event the gateway has written to Redis.
 *
 * @param event the event as sent (event time is the client clock at {@code report})
 * @param firstView whether it created the user's record of the item (first play, or first since a
 *     delete/clear or since it left the hot tier)
 */
public record AckedEvent(PlayEvent event, boolean firstView) {}
