package io.playline.node.push;

/** What one node sends another on its channel ({@link PushKeys#channel}): a push or a join notice. */
public sealed interface NodeMessage permits PushMessage, JoinNotice {}
