/** The Playline benchmark: scenarios, passes alternating Playline with its baselines, and the report (issue 5). */
@NullMarked
package io.playline.bench;

import org.jspecify.annotations.NullMarked;
