package io.playline.node.grpc;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.playline.node.edge.ConnectionLimiter;

/**
 * What a gRPC server refuses or cuts below its calls, tagged with the server ({@code player} or
 * {@code api}): {@code playline.grpc.connections.refused{server, reason=node|address}} (TCP
 * connections over {@code connection.max} / {@code connection.max.per.address}) and {@code
 * playline.grpc.connections.cut{server, reason}} ({@code rapid_reset}: too many RST_STREAM;
 * {@code ping_flood}: pings faster than permitted; {@code no_stream}: no stream within {@code
 * grpc.first.stream.timeout}; {@code gave_way}: no call on it proved a credential, and a new
 * connection over the caps took its place); {@code playline.grpc.connections{server}}: the TCP
 * connections counted now against the caps (only on a server that counts them). Thread-safe.
 */
public final class GrpcEdgeMetrics {
  private final Counter refusedNode;
  private final Counter refusedAddress;
  private final Counter rapidReset;
  private final Counter pingFlood;
  private final Counter noStream;
  private final Counter gaveWay;

  private final MeterRegistry registry;
  private final String server;

  public GrpcEdgeMetrics(MeterRegistry registry, String server) {
    this.registry = registry;
    this.server = server;
    refusedNode = refused(registry, server, "node");
    refusedAddress = refused(registry, server, "address");
    rapidReset = cut(registry, server, "rapid_reset");
    pingFlood = cut(registry, server, "ping_flood");
    noStream = cut(registry, server, "no_stream");
    gaveWay = cut(registry, server, "gave_way");
  }

  private static Counter refused(MeterRegistry registry, String server, String reason) {
    return Counter.builder("playline.grpc.connections.refused").tag("server", server).tag("reason", reason)
        .description("TCP connections closed at accept: over connection.max (node) or connection.max.per.address")
        .register(registry);
  }

  private static Counter cut(MeterRegistry registry, String server, String reason) {
    return Counter.builder("playline.grpc.connections.cut").tag("server", server).tag("reason", reason)
        .description("HTTP/2 connections the server closed for what the client did (or did not do)")
        .register(registry);
  }

  /** Registers the gauge of the TCP connections {@code connections} counts now. */
  void countedBy(ConnectionLimiter connections) {
    Gauge.builder("playline.grpc.connections", connections, ConnectionLimiter::connections).tag("server", server)
        .description("TCP connections open and counted against connection.max / connection.max.per.address")
        .register(registry);
  }

  void refused(boolean node) {
    (node ? refusedNode : refusedAddress).increment();
  }

  /** A GOAWAY ENHANCE_YOUR_CALM sent, by its debug data ({@code too_many_rststreams}, {@code too_many_pings}). */
  void calmDown(String debugData) {
    if (debugData.contains("rst")) {
      rapidReset.increment();
    } else if (debugData.contains("ping")) {
      pingFlood.increment();
    }
  }

  void noStream() {
    noStream.increment();
  }

  /** A connection on which no call proved a credential was closed to make room for a new one. */
  void gaveWay() {
    gaveWay.increment();
  }
}
