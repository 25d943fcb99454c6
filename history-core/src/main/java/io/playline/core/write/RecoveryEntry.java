package io.playline.core.write;

/**
 * One entry of a recovery log: the stream {@code <p>wb:{<shard>}:log} and the id Redis gave the
 * entry ({@code <ms>-<seq>}, by that server's clock). An entry lists the items one write call
 * applied; it stays until Kafka acknowledged the write-back records carrying them (the node then
 * deletes it) or the job's recovery sweep persisted them.
 */
public record RecoveryEntry(int shard, String id) {}
