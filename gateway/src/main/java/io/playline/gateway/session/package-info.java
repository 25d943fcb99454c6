/** Connection sessions: authentication once per connection and the server-side session store. */
@NullMarked
package io.playline.gateway.session;

import org.jspecify.annotations.NullMarked;
