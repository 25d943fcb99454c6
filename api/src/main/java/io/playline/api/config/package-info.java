/**
 * The internal API's configuration: its keys ({@link io.playline.api.config.ApiSettings}, the
 * {@code api.*} catalogue) and the typed records read from them, {@link
 * io.playline.api.config.ApiConfig} (who may call, where the gRPC port listens) and {@link
 * io.playline.api.config.ApiHttpConfig} (the Connect port, {@code api.http.*}). Depends on nothing of
 * the api module, so both the server and {@code connect/} read it.
 */
@NullMarked
package io.playline.api.config;

import org.jspecify.annotations.NullMarked;
