/** The {@code bin/playline} command line: standalone mode with embedded real servers, roles, tokens. */
@NullMarked
package io.playline.standalone;

import org.jspecify.annotations.NullMarked;
