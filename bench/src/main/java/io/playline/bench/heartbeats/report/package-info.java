/** Pass results, the arithmetic over them (medians, ratios, per-heartbeat figures) and the printed report. */
@NullMarked
package io.playline.bench.heartbeats.report;

import org.jspecify.annotations.NullMarked;
