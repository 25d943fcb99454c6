package io.playline.bench.hostile;

import com.google.protobuf.InvalidProtocolBufferException;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketClientProtocolConfig;
import io.netty.handler.codec.http.websocketx.WebSocketClientProtocolHandler;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.util.concurrent.ScheduledFuture;
import io.playline.gateway.session.JwtTokens;
import io.playline.proto.v1.Auth;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.ClientFrame;
import io.playline.proto.v1.DeleteItems;
import io.playline.proto.v1.Heartbeat;
import io.playline.proto.v1.ItemKey;
import io.playline.proto.v1.PlayEvent;
import io.playline.proto.v1.ServerFrame;
import io.playline.time.Time;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The account-level attacks, over authenticated player WebSockets (one user id per attack, one
 * token):
 *
 * <ul>
 *   <li>{@link AttackKind#TOMBSTONES}: K connections each sending {@code DeleteItems} of
 *       {@value #DELETE_ITEMS} never-played items (random oids above 10^9) at {@link
 *       AttackTarget#framesPerSecond()}, at most {@value #WINDOW} unanswered;
 *   <li>{@link AttackKind#WRITE_FLOOD}: {@value #WRITE_CONNECTIONS} connections (or K when more)
 *       each sending heartbeats of {@value #EVENTS} events at that rate, {@value #WINDOW} unacked;
 *   <li>{@link AttackKind#SESSION_CHURN}: K loops of connect, {@code Auth}, close on {@code AuthOk}.
 *   <li>{@link AttackKind#MALFORMED}: one loop of connect, a frame that is no {@code ClientFrame}
 *       (closed by the node), a second's pause;
 *   <li>{@link AttackKind#NEIGHBOURS} (honest): K loops of connect, {@code Auth} as a user of the
 *       loop's own, one heartbeat, close on its ack, {@value #NEIGHBOUR_PAUSE_MS} ms' pause; a loop
 *       completed is accepted, any other end refused.
 * </ul>
 *
 * The frame rate defaults to just under the node's per-connection frame limit: "as fast as
 * allowed", so what stops the attack is a per-user budget, not the per-connection one. Error
 * frames count as refusals by code, close frames by close code.
 */
final class StreamAttacker extends Attacker {
  static final int DELETE_ITEMS = 50;
  static final int EVENTS = 100;
  static final int WINDOW = 8;
  static final int WRITE_CONNECTIONS = 16;
  static final int NEIGHBOUR_PAUSE_MS = 200;
  /** Users each neighbour loop cycles through (distinct from the attackers' and the honest players'). */
  static final int NEIGHBOUR_USERS = 500;
  /** A frame that is no ClientFrame: field 1 says 5 bytes follow, 1 does. */
  private static final byte[] MALFORMED_FRAME = {0x0A, 0x05, 0x01};

  private final long uid;
  private final String token;

  StreamAttacker(AttackKind kind, AttackTarget target, EventLoopGroup group, boolean epoll, Duration length) {
    super(kind, target, group, epoll, length);
    this.uid = target.uidBase() + kind.ordinal();
    this.token = JwtTokens.mint(target.secret(), uid, Duration.ofHours(1), Time.SYSTEM.instant());
  }

  @Override
  void begin() {
    AttackKind kind = stats.kind();
    int n = kind == AttackKind.WRITE_FLOOD ? Math.max(WRITE_CONNECTIONS, target.connections())
        : kind == AttackKind.MALFORMED ? 1 : target.connections();
    Duration pause = switch (kind) {
      case SESSION_CHURN -> Duration.ZERO;
      case MALFORMED -> Duration.ofSeconds(1);
      case NEIGHBOURS -> Duration.ofMillis(NEIGHBOUR_PAUSE_MS);
      default -> Duration.ofMillis(200);
    };
    for (int i = 0; i < n; i++) {
      open(target.websocketAddress(), "", true, pause);
    }
  }

  /** A player token of one of the neighbours' own users, minted per connection (as each phone holds its own). */
  private String neighbourToken() {
    long user = target.uidBase() + 1_000 + ThreadLocalRandom.current().nextInt(NEIGHBOUR_USERS);
    return JwtTokens.mint(target.secret(), user, Duration.ofHours(1), Time.SYSTEM.instant());
  }

  @Override
  void init(Channel ch, String label) {
    ch.pipeline().addLast(new HttpClientCodec(), new HttpObjectAggregator(8192),
        new WebSocketClientProtocolHandler(WebSocketClientProtocolConfig.newBuilder()
            .webSocketUri(target.websocket()).handleCloseFrames(false).maxFramePayloadLength(1 << 20)
            .handshakeTimeoutMillis(10_000).build()),
        new Session(label));
  }

  /** One authenticated connection of the attack. Confined to the channel's event loop. */
  private final class Session extends SimpleChannelInboundHandler<WebSocketFrame> {
    private final String label;
    private final String device = "hostile-" + ThreadLocalRandom.current().nextInt(1_000_000);
    private long seq;
    private int inFlight;
    /** When this connection's Auth was sent ({@link Time#nanoTime}), 0 before. */
    private long authSentNanos;
    private @Nullable ScheduledFuture<?> pacer;

    Session(String label) {
      this.label = label;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
      if (evt == WebSocketClientProtocolHandler.ClientHandshakeStateEvent.HANDSHAKE_COMPLETE) {
        if (stats.kind() == AttackKind.MALFORMED) {
          ctx.writeAndFlush(new BinaryWebSocketFrame(Unpooled.wrappedBuffer(MALFORMED_FRAME)), ctx.voidPromise());
          stats.sent(1);
          return;
        }
        authSentNanos = Time.SYSTEM.nanoTime();
        send(ctx, ClientFrame.newBuilder().setAuth(Auth.newBuilder().setToken(stats.kind() == AttackKind.NEIGHBOURS
            ? neighbourToken() : token).setDeviceId(device).setPlatform("hostile")));
        if (stats.kind() == AttackKind.SESSION_CHURN || stats.kind() == AttackKind.NEIGHBOURS) {
          stats.sent(1);
        }
      } else if (evt == WebSocketClientProtocolHandler.ClientHandshakeStateEvent.HANDSHAKE_TIMEOUT) {
        stats.refused(label + "handshake-timeout");
      }
      super.userEventTriggered(ctx, evt);
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, WebSocketFrame frame) throws InvalidProtocolBufferException {
      if (frame instanceof CloseWebSocketFrame close) {
        stats.refused(label + "close-" + close.statusCode());
        closeSelf(ctx.channel());
        return;
      }
      if (!(frame instanceof BinaryWebSocketFrame)) {
        return;
      }
      ServerFrame f = ServerFrame.parseFrom(ByteBufUtil.getBytes(frame.content()));
      switch (f.getBodyCase()) {
        case AUTH_OK -> onAuthenticated(ctx);
        case HEARTBEAT_ACK, DONE -> {
          stats.accepted();
          inFlight = Math.max(0, inFlight - 1);
          if (stats.kind() == AttackKind.NEIGHBOURS) {
            closeSelf(ctx.channel());
          }
        }
        case ERROR -> {
          if (f.getSeq() == 1 && authSentNanos != 0) {
            stats.refused(label + f.getError().getCode().name(), authSentNanos);
          } else {
            stats.refused(label + f.getError().getCode().name());
          }
          if (f.getSeq() != 0) {
            inFlight = Math.max(0, inFlight - 1);
          }
        }
        default -> { }
      }
    }

    private void onAuthenticated(ChannelHandlerContext ctx) {
      if (stats.kind() == AttackKind.SESSION_CHURN) {
        stats.accepted();
        closeSelf(ctx.channel());
        return;
      }
      if (stats.kind() == AttackKind.NEIGHBOURS) {
        long now = Time.SYSTEM.millis();
        send(ctx, ClientFrame.newBuilder().setHeartbeat(Heartbeat.newBuilder().addEvents(PlayEvent.newBuilder()
            .setBusiness(Business.VIDEO).setOid(1 + ThreadLocalRandom.current().nextInt(1000)).setProgressMs(30_000)
            .setDurationMs(600_000).setEventTimeMs(now))));
        return;
      }
      long period = TimeUnit.SECONDS.toNanos(1) / target.framesPerSecond();
      pacer = ctx.executor().scheduleAtFixedRate(() -> tick(ctx), period, period, TimeUnit.NANOSECONDS);
    }

    private void tick(ChannelHandlerContext ctx) {
      if (!running() || !ctx.channel().isActive()) {
        if (pacer != null) {
          pacer.cancel(false);
        }
        return;
      }
      if (inFlight >= WINDOW || !ctx.channel().isWritable()) {
        return;
      }
      ClientFrame.Builder b = ClientFrame.newBuilder();
      ThreadLocalRandom r = ThreadLocalRandom.current();
      if (stats.kind() == AttackKind.TOMBSTONES) {
        DeleteItems.Builder d = DeleteItems.newBuilder();
        for (int i = 0; i < DELETE_ITEMS; i++) {
          d.addItems(ItemKey.newBuilder().setBusiness(Business.VIDEO).setOid(1_000_000_000L + r.nextLong(1L << 40)));
        }
        b.setDelete(d);
      } else {
        Heartbeat.Builder h = Heartbeat.newBuilder();
        long now = Time.SYSTEM.millis();
        for (int i = 0; i < EVENTS; i++) {
          h.addEvents(PlayEvent.newBuilder().setBusiness(Business.VIDEO).setOid(1 + r.nextInt(100_000))
              .setProgressMs(r.nextInt(600_000)).setDurationMs(600_000).setEventTimeMs(now));
        }
        b.setHeartbeat(h);
      }
      send(ctx, b);
      inFlight++;
      stats.sent(1);
    }

    private void send(ChannelHandlerContext ctx, ClientFrame.Builder frame) {
      byte[] bytes = frame.setSeq(++seq).build().toByteArray();
      ctx.writeAndFlush(new BinaryWebSocketFrame(Unpooled.wrappedBuffer(bytes)), ctx.voidPromise());
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
      if (pacer != null) {
        pacer.cancel(false);
      }
      super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      stats.refused(label + "protocol-error");
      ctx.close();
    }
  }
}
