/** What the benchmark reads from the servers it measures: Prometheus metrics, /proc CPU and RSS, endpoints files. */
@NullMarked
package io.playline.bench.probe;

import org.jspecify.annotations.NullMarked;
