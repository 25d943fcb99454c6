/**
 * The internal {@code playline.v1.History} API for backends: {@link io.playline.api.ApiServer}
 * serves it with health and reflection on {@code api.port}, on a {@link
 * io.playline.node.Node}'s loops, reporting through the node's batched write path and
 * querying through its history service. Its own role ({@code bin/playline api}); standalone serves
 * it too. This package is the service and its assembly; its configuration is in {@code config/},
 * the HTTP/JSON port in {@code connect/}, and neither uses this package.
 */
@NullMarked
package io.playline.api;

import org.jspecify.annotations.NullMarked;
