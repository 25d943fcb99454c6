package io.playline.gateway.push;

/** What one node sends another on its channel ({@link PushKeys#channel}): a push or a join notice. */
sealed interface NodeMessage permits PushMessage, JoinNotice {}
