/**
 * TLS on the player and API listeners: settings ({@link io.playline.gateway.tls.TlsSettings}) and
 * the server contexts with certificate reload ({@link io.playline.gateway.tls.ServerTls}).
 */
@NullMarked
package io.playline.gateway.tls;

import org.jspecify.annotations.NullMarked;
