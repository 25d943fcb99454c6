package io.playline.gateway.grpc;

import io.grpc.BindableService;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.ServiceDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import io.playline.gateway.heartbeat.EventWait;
import io.playline.gateway.heartbeat.HeartbeatPeek;
import io.playline.gateway.session.DecodedFrame;
import io.playline.gateway.session.FrameDecoder;
import io.playline.gateway.session.SessionParts;
import io.playline.gateway.session.StreamSession;
import io.playline.node.edge.ConnectionLimiter;
import io.playline.proto.v1.Error.Code;
import io.playline.proto.v1.GatewayGrpc;
import io.playline.proto.v1.ServerFrame;
import io.playline.time.LogThrottle;
import io.playline.time.Time;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import org.jspecify.annotations.Nullable;
import io.playline.node.grpc.ClientErrorLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code playline.v1.Gateway/Connect}: the player stream over gRPC, driving the same {@link
 * StreamSession} as the WebSocket transport. Each stream is pinned to one event loop; inbound
 * messages hop onto it, so the session stays single-threaded.
 *
 * <p>The method is bound with the generated descriptor's name, schema and response marshaller but
 * takes each request as its encoded bytes: they are decoded on the stream's loop, where the session
 * knows whether it is told to wait, so a heartbeat with events sent while waiting is refused from
 * its seq alone ({@link HeartbeatPeek}), as on WebSocket, and a message that is no {@code
 * ClientFrame} is answered {@code PROTOCOL_VIOLATION} by the session, as on WebSocket, instead of
 * failing inside gRPC: the same decode step ({@link FrameDecoder}) hands the session the same
 * {@link DecodedFrame}s. The wire contract is unchanged.
 */
public final class GatewayGrpcService implements BindableService {
  private static final Logger log = LoggerFactory.getLogger(GatewayGrpcService.class);
  /** Streams ended for not reading: one line per interval, however many clients stop reading. */
  private static final LogThrottle SLOW_CONSUMERS = new LogThrottle(Time.SYSTEM);
  /**
   * A request message as it came off the wire, or why it could not be read ({@code refused}: over
   * {@code frame.max.bytes} once decompressed, or corrupt compression). Read in gRPC's deframing,
   * answered on the stream's loop like any bad frame: a refusal thrown from the parse would end the
   * call {@code UNKNOWN} with a stack trace in the log, from a thread the session does not own.
   */
  record RequestMessage(byte[] bytes, @Nullable Status refused) {}

  private static final byte[] NO_BYTES = new byte[0];

  private static final MethodDescriptor.Marshaller<RequestMessage> FRAME_BYTES = new MethodDescriptor.Marshaller<>() {
    @Override
    public InputStream stream(RequestMessage frame) {
      return new ByteArrayInputStream(frame.bytes());
    }

    @Override
    public RequestMessage parse(InputStream stream) {
      try {
        return new RequestMessage(stream.readAllBytes(), null);
      } catch (StatusRuntimeException e) { // the size limit, met while inflating
        ClientErrorLog.parseFailed(e.getStatus().getCode() == Status.Code.RESOURCE_EXHAUSTED
            ? ClientErrorLog.Kind.TOO_LARGE : ClientErrorLog.Kind.UNDECODABLE, e.getStatus().getDescription());
        return new RequestMessage(NO_BYTES, e.getStatus());
      } catch (IOException e) { // corrupt compression
        ClientErrorLog.parseFailed(ClientErrorLog.Kind.UNDECODABLE, e.getMessage());
        return new RequestMessage(NO_BYTES, Status.INVALID_ARGUMENT);
      }
    }
  };
  private static final MethodDescriptor<RequestMessage, ServerFrame> CONNECT = GatewayGrpc.getConnectMethod()
      .toBuilder(FRAME_BYTES, GatewayGrpc.getConnectMethod().getResponseMarshaller()).build();

  private final SessionParts parts;
  private final ConnectionLimiter limiter;
  private final EventLoopGroup loops;

  public GatewayGrpcService(SessionParts parts, ConnectionLimiter limiter, EventLoopGroup loops) {
    this.parts = parts;
    this.limiter = limiter;
    this.loops = loops;
  }

  /** The interceptor that must wrap this service so per-address limits see the caller's address. */
  public static io.grpc.ServerInterceptor remoteAddressInterceptor() {
    return new RemoteAddressInterceptor();
  }

  @Override
  public ServerServiceDefinition bindService() {
    ServiceDescriptor generated = GatewayGrpc.getServiceDescriptor();
    return ServerServiceDefinition.builder(ServiceDescriptor.newBuilder(generated.getName())
            .setSchemaDescriptor(generated.getSchemaDescriptor()).addMethod(CONNECT).build())
        .addMethod(CONNECT, ServerCalls.asyncBidiStreamingCall(this::connect))
        .build();
  }

  private StreamObserver<RequestMessage> connect(StreamObserver<ServerFrame> responseObserver) {
    ServerCallStreamObserver<ServerFrame> observer = (ServerCallStreamObserver<ServerFrame>) responseObserver;
    EventExecutor executor = loops.next();
    SocketAddress remote = RemoteAddressInterceptor.REMOTE_ADDRESS.get();
    InetAddress address = remote instanceof InetSocketAddress isa ? isa.getAddress() : null;
    GrpcStreamTransport transport = new GrpcStreamTransport(observer, executor, String.valueOf(remote),
        parts.config().maxUnsentBytes(), () -> {
          parts.metrics().error(Code.SLOW_CONSUMER);
          long ended = SLOW_CONSUMERS.count();
          if (ended > 0) {
            log.info("{} player stream(s) ended since the last report: the client stopped reading (latest: {}, "
                + "connection.max.unsent.bytes {}); counted in playline_errors_total{code=\"SLOW_CONSUMER\"}, "
                + "reported at most every {} s", ended, remote, parts.config().maxUnsentBytes(),
                SLOW_CONSUMERS.interval().toSeconds());
          }
        }, RemoteAddressInterceptor.CONNECTION.get());
    EventWait wait = parts.eventWait();
    StreamSession session = new StreamSession(transport, parts, wait);
    FrameDecoder frames = new FrameDecoder(wait);
    observer.setOnReadyHandler(() -> executor.execute(transport::ready));
    String refused = limiter.admit(address);
    Runnable release = new Runnable() {
      private boolean released;

      @Override
      public void run() {
        if (!released && refused == null) {
          released = true;
          limiter.release(address);
        }
      }
    };
    observer.setOnCancelHandler(() -> executor.execute(() -> {
      transport.markClosed(false);
      session.onTransportClosed();
      release.run();
    }));
    // The server ended the call (an error answer, a drain): the client sends nothing more, so this
    // is where its slot is given back.
    observer.setOnCloseHandler(() -> executor.execute(() -> {
      transport.markClosed(false);
      session.onTransportClosed();
      release.run();
    }));
    executor.execute(() -> {
      session.start();
      if (refused != null) {
        session.onBadFrame(Code.TOO_MANY_CONNECTIONS, refused);
      }
    });
    return new StreamObserver<>() {
      @Override
      public void onNext(RequestMessage message) {
        executor.execute(() -> session.onFrame(decode(message, frames)));
      }

      @Override
      public void onError(@Nullable Throwable t) {
        executor.execute(() -> {
          transport.markClosed(false);
          session.onTransportClosed();
          release.run();
        });
      }

      @Override
      public void onCompleted() {
        executor.execute(() -> {
          transport.markClosed(true);
          session.onTransportClosed();
          release.run();
        });
      }
    };
  }

  /**
   * The decode step of a stream: a message gRPC could not read (over {@code frame.max.bytes} once
   * decompressed, corrupt compression) is refused as on WebSocket, anything else goes to {@code
   * frames}. Nothing a stream sends is charged to its address here (HTTP/2 abuse is the
   * connection's, {@code GrpcServers}).
   */
  private DecodedFrame decode(RequestMessage message, FrameDecoder frames) {
    Status refused = message.refused();
    if (refused == null) {
      return frames.decode(ByteBuffer.wrap(message.bytes()));
    }
    return refused.getCode() == Status.Code.RESOURCE_EXHAUSTED
        ? new DecodedFrame.Bad(Code.FRAME_TOO_LARGE, "frame larger than " + parts.config().maxFrameBytes()
            + " bytes once decompressed", false)
        : new DecodedFrame.Bad(Code.PROTOCOL_VIOLATION, "malformed frame: its compression is corrupt", false);
  }
}
