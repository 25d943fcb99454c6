/** Admin HTTP: Prometheus metrics, liveness and readiness. */
@NullMarked
package io.playline.gateway.admin;

import org.jspecify.annotations.NullMarked;
