/**
 * The History API over HTTP/1.1 as the Connect protocol (unary {@code POST
 * /playline.v1.History/<Method>} with {@code application/json} or {@code application/proto}, and
 * {@code GET} for the methods without side effects): {@link io.playline.api.connect.ConnectServer}
 * listens on {@code api.http.port} and hands each request to the very service definition the gRPC
 * port serves, interceptors included ({@link io.playline.api.connect.UnaryCall}), so credentials,
 * validation, limits and metrics are the same.
 */
@NullMarked
package io.playline.api.connect;

import org.jspecify.annotations.NullMarked;
