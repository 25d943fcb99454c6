/** Admin HTTP: Prometheus metrics, liveness and readiness. */
@NullMarked
package io.playline.node.admin;

import org.jspecify.annotations.NullMarked;
