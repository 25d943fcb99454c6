/**
 * TLS on the player and API listeners: settings ({@link io.playline.node.tls.TlsConfig}) and
 * the server contexts with certificate reload ({@link io.playline.node.tls.ServerTls}).
 */
@NullMarked
package io.playline.node.tls;

import org.jspecify.annotations.NullMarked;
