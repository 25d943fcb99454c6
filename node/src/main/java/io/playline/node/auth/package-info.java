/** Credentials shared by the roles: HS256 signing and verification, and the failure it reports. */
@NullMarked
package io.playline.node.auth;

import org.jspecify.annotations.NullMarked;
