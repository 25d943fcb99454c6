package io.playline.bench.hostile;

import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;

/**
 * Where and how hard the attackers hit: one node's player and admin ports, the secret player
 * tokens are signed with, and the bounds every attacker obeys. Immutable.
 *
 * @param websocket {@code ws://127.x.x.x:port/path} of the player stream
 * @param grpc the player gRPC port
 * @param admin the admin HTTP port
 * @param secret HS256 secret for player tokens
 * @param uidBase first user id the attackers use (each attacker takes its own above it)
 * @param connections K: connections per attacker kind (write flood: 16 when K is smaller)
 * @param idleConnections idle HTTP/2 connections the idle attacker opens; slowloris connections per port
 * @param framesPerSecond frames per second per stream connection ("as fast as allowed")
 * @param slowlorisInterval pause between two bytes of a slowloris request
 * @param maxOperations an attacker stops after this many operations (frames, streams, cycles)
 * @param addressBlock third octet of the attackers' source addresses, {@code 127.0.<block>.<kind + 1>}
 * @param shared when not null, every attacker's source address instead (the honest players' own,
 *     with {@code --shared-address}: a carrier's CGNAT address, a campus)
 */
public record AttackTarget(URI websocket, InetSocketAddress grpc, InetSocketAddress admin, String secret,
    long uidBase, int connections, int idleConnections, int framesPerSecond, Duration slowlorisInterval,
    long maxOperations, int addressBlock, java.net.@org.jspecify.annotations.Nullable InetAddress shared) {

  public AttackTarget {
    for (String host : new String[] {websocket.getHost(), grpc.getHostString(), admin.getHostString()}) {
      if (host == null || !host.startsWith("127.")) {
        throw new IllegalArgumentException("target host " + host + " (expected: a 127.0.0.0/8 loopback address)");
      }
    }
    if (addressBlock < 1 || addressBlock > 254) {
      throw new IllegalArgumentException("addressBlock: " + addressBlock + " (expected: 1..254; 0 holds the honest players)");
    }
    if (connections <= 0 || idleConnections <= 0 || framesPerSecond <= 0 || maxOperations <= 0
        || slowlorisInterval.isNegative() || slowlorisInterval.isZero()) {
      throw new IllegalArgumentException("connections, idleConnections, framesPerSecond, maxOperations, "
          + "slowlorisInterval: " + connections + ", " + idleConnections + ", " + framesPerSecond + ", "
          + maxOperations + ", " + slowlorisInterval + " (expected: > 0)");
    }
  }

  /**
   * The same attack from other source addresses and other users: what the node learns about one
   * (penalties, budgets, tombstones) does not carry over to the other; with a {@link #shared}
   * address, only other users.
   */
  public AttackTarget elsewhere() {
    return new AttackTarget(websocket, grpc, admin, secret, uidBase + 100, connections, idleConnections,
        framesPerSecond, slowlorisInterval, maxOperations, addressBlock + 1, shared);
  }

  /** The same attack from {@code address}, every attacker's source address. */
  public AttackTarget from(java.net.InetAddress address) {
    return new AttackTarget(websocket, grpc, admin, secret, uidBase, connections, idleConnections, framesPerSecond,
        slowlorisInterval, maxOperations, addressBlock, address);
  }

  /** The WebSocket port as a socket address. */
  public InetSocketAddress websocketAddress() {
    return new InetSocketAddress(websocket.getHost(), websocket.getPort());
  }
}
