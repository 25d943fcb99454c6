package io.playline.standalone.cli;

import io.playline.client.Ack;
import io.playline.client.ConnectionState;
import io.playline.client.PlaylineClient;
import io.playline.client.PlaylineListener;
import io.playline.client.TransportKind;
import io.playline.core.config.ConfigSource;
import io.playline.gateway.session.JwtTokens;
import io.playline.proto.lite.v1.Business;
import io.playline.roles.Secrets;
import io.playline.roles.cli.RolesCli;
import io.playline.standalone.PlaylineCli;
import io.playline.time.Time;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code playline play --uid 42 --oid 7 --progress 30s}: one player, as an SDK would be one, sends
 * one progress report through a gateway node and waits for its ack; prints the ack and the
 * first-today date. For trying a node or a deployment from a shell (the README and the
 * distribution's smoke test use it); the Java SDK ({@code client-sdk}) does the work.
 */
@Command(name = "play", mixinStandardHelpOptions = true,
    description = "Send one progress report as a player (over the gateway's WebSocket, or gRPC with --grpc) and wait "
        + "for its ack. The player token is minted with PLAYLINE_AUTH_SECRET (else the standalone development secret) "
        + "unless --token is given.")
public final class PlayCommand implements java.util.concurrent.Callable<Integer> {
  @Option(names = "--uid", required = true, description = "The player's user id (> 0).")
  long uid;

  @Option(names = "--oid", required = true, description = "The item's id (> 0).")
  long oid;

  @Option(names = "--business", defaultValue = "VIDEO", description = "VIDEO, ARTICLE, COMIC, LIVE, AUDIO or EPISODE "
      + "(default: ${DEFAULT-VALUE}).")
  Business business = Business.VIDEO;

  @Option(names = "--progress", defaultValue = "30s", description = "Position reached, e.g. 30s, 5m (default: "
      + "${DEFAULT-VALUE}).")
  String progress = "30s";

  @Option(names = "--duration", defaultValue = "10m", description = "The item's length (default: ${DEFAULT-VALUE}).")
  String duration = "10m";

  @Option(names = "--gateway", paramLabel = "HOST:PORT",
      description = "The gateway's WebSocket port, or its gRPC port with --grpc (default: $PLAYLINE_GATEWAY_ADDRESS, "
          + "else ws.port / grpc.port if configured, else the running standalone's endpoints.json in the data dir, "
          + "else 127.0.0.1:8080 / 127.0.0.1:9090).")
  @Nullable String gatewayOption;

  @Option(names = "--grpc", description = "Use the player gRPC stream instead of the WebSocket.")
  boolean grpc;

  @Option(names = "--device", defaultValue = "playline-cli", description = "device_id (default: ${DEFAULT-VALUE}).")
  String device = "playline-cli";

  @Option(names = "--token", paramLabel = "JWT", description = "A player token to use instead of minting one.")
  @Nullable String token;

  @Option(names = "--timeout", defaultValue = "15s", description = "How long to wait for the ack (default: "
      + "${DEFAULT-VALUE}).")
  String timeout = "15s";

  @Mixin TargetOptions target = new TargetOptions();

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws InterruptedException {
    if (uid <= 0 || oid <= 0) {
      throw new IllegalArgumentException("--uid and --oid: " + uid + ", " + oid + " (expected: > 0)");
    }
    Duration position = duration("--progress", progress, true);
    Duration length = duration("--duration", duration, false);
    Duration wait = duration("--timeout", timeout, false);
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    String gateway = target.address(grpc ? TargetNode.Port.GRPC : TargetNode.Port.WEBSOCKET, gatewayOption, err);
    int colon = gateway.lastIndexOf(':');
    if (colon <= 0) {
      throw new IllegalArgumentException("--gateway: '" + gateway + "' (expected HOST:PORT)");
    }
    String host = gateway.substring(0, colon);
    int port;
    try {
      port = Integer.parseInt(gateway.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--gateway: '" + gateway + "' (expected HOST:PORT)");
    }
    String jwt = token != null ? token : mint();
    CompletableFuture<Ack> acked = new CompletableFuture<>();
    AtomicReference<@Nullable Throwable> lastFailure = new AtomicReference<>();
    PlaylineClient client = PlaylineClient.builder()
        .endpoint(host, port)
        .transport(grpc ? TransportKind.GRPC : TransportKind.WEBSOCKET)
        .tokenSupplier(() -> CompletableFuture.completedFuture(jwt))
        .deviceId(device).platform("cli")
        .backoff(Duration.ofMillis(200), Duration.ofSeconds(1), 3)
        .connectTimeout(Duration.ofSeconds(5))
        .listener(new PlaylineListener() {
          @Override
          public void onAck(Ack ack) {
            acked.complete(ack);
          }

          @Override
          public void onStateChanged(ConnectionState state, @Nullable Throwable cause) {
            if (cause != null) {
              lastFailure.set(cause);
            }
            if (state == ConnectionState.CLOSED) {
              acked.completeExceptionally(cause != null ? cause : new IllegalStateException("the connection closed"));
            }
          }
        })
        .build();
    try {
      client.report(business, oid, position.toMillis(), length.toMillis());
      client.flush();
      Ack ack = acked.get(wait.toMillis(), TimeUnit.MILLISECONDS);
      out.printf(Locale.ROOT, "acked: uid %d, %s %d at %.1f s of %.1f s, via %s %s; first-today date %s%s%n", uid,
          business, oid, position.toMillis() / 1000.0, length.toMillis() / 1000.0, grpc ? "gRPC" : "WebSocket",
          gateway, ack.flagDate(), ack.firstToday() ? " (the first play of the day)" : "");
      out.flush();
      return 0;
    } catch (ExecutionException | TimeoutException e) {
      Throwable cause = e instanceof ExecutionException ? e.getCause() : lastFailure.get();
      String unreachable = cause == null ? null : Unreachable.describe(cause, "gateway", gateway, "start a node with "
          + "`bin/playline standalone` (or the gateway role), or point at one with --gateway HOST:PORT");
      err.println("playline: " + (unreachable != null ? unreachable
          : "no ack from " + gateway + " within " + timeout + (cause == null ? "" : ": " + cause.getMessage())));
      return RolesCli.EXIT_RUNTIME;
    } finally {
      client.close();
    }
  }

  private String mint() {
    Secrets.Resolved resolved = Secrets.resolve(target.config(), true);
    if (resolved.dev()) {
      spec.commandLine().getErr().println("playline: PLAYLINE_AUTH_SECRET is not set; signing with the standalone "
          + "development secret");
    }
    return JwtTokens.mint(resolved.secret(), uid, Duration.ofMinutes(10), Time.SYSTEM.instant());
  }

  private static Duration duration(String option, String text, boolean zeroOk) {
    return ConfigSource.parseDuration(text).filter(d -> zeroOk || !d.isZero())
        .orElseThrow(() -> new IllegalArgumentException(option + ": '" + text + "' (expected: e.g. 30s, 5m)"));
  }
}
