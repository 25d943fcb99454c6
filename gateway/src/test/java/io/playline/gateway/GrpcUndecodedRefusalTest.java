package io.playline.gateway;

import static io.playline.testing.Frames.event;
import static io.playline.testing.Frames.heartbeat;
import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import io.playline.proto.v1.Error.Code;
import io.playline.proto.v1.GatewayGrpc;
import io.playline.proto.v1.PlayEvent;
import io.playline.proto.v1.ServerFrame;
import io.playline.testing.Frames;
import io.playline.testing.ManualTime;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The gRPC player stream decodes a request on the stream's loop, so a heartbeat with events sent
 * while the connection is told to wait (retry_after_ms) is refused from its seq alone, its events
 * never decoded — as on WebSocket. Shown with events that would not decode: refused RATE_LIMITED
 * while waiting, a protocol violation once the wait is over.
 */
@ExtendWith(RealRedisExtension.class)
class GrpcUndecodedRefusalTest {
  /** The stream's requests as raw bytes, so the test can send what no stub would. */
  private static final MethodDescriptor<byte[], ServerFrame> RAW_CONNECT = GatewayGrpc.getConnectMethod()
      .toBuilder(new MethodDescriptor.Marshaller<byte[]>() {
        @Override
        public InputStream stream(byte[] value) {
          return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
          try {
            return stream.readAllBytes();
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
      }, GatewayGrpc.getConnectMethod().getResponseMarshaller()).build();

  @Test
  void eventsSentWhileToldToWaitAreRefusedUndecoded(RedisNamespace ns) throws Exception {
    ManualTime time = new ManualTime();
    try (TestGateway gateway = new TestGateway(ns, Map.of("user.max.events.per.second", "1"), time)) {
      ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", gateway.server.grpcAddress().getPort())
          .usePlaintext().build();
      try {
        BlockingQueue<ServerFrame> answers = new LinkedBlockingQueue<>();
        StreamObserver<byte[]> requests = ClientCalls.asyncBidiStreamingCall(
            channel.newCall(RAW_CONNECT, CallOptions.DEFAULT), new Collect(answers));
        requests.onNext(Frames.auth(1, TestGateway.token(28_900)).toByteArray());
        assertThat(next(answers).hasAuthOk()).isTrue();
        long now = time.millis();
        PlayEvent[] ten = new PlayEvent[10];
        for (int i = 0; i < ten.length; i++) {
          ten[i] = event(1 + i, 1, now);
        }
        requests.onNext(heartbeat(2, ten).toByteArray());
        assertThat(next(answers).hasHeartbeatAck()).isTrue();
        requests.onNext(heartbeat(3, event(1, 2, now)).toByteArray());
        ServerFrame refused = next(answers);
        assertThat(refused.getError().getCode()).isEqualTo(Code.RATE_LIMITED);

        requests.onNext(heartbeatWithMalformedEvents(4));
        ServerFrame undecoded = next(answers);
        assertThat(undecoded.getSeq()).isEqualTo(4);
        assertThat(undecoded.getError().getCode()).as("%s", undecoded).isEqualTo(Code.RATE_LIMITED);

        time.advance(Duration.ofMillis(refused.getError().getRetryAfterMs()));
        requests.onNext(heartbeatWithMalformedEvents(5));
        assertThat(next(answers).getError().getCode()).isEqualTo(Code.PROTOCOL_VIOLATION);
      } finally {
        channel.shutdownNow();
      }
    }
  }

  /** A ClientFrame {@code seq} whose heartbeat's one event is no PlayEvent (a truncated varint). */
  private static byte[] heartbeatWithMalformedEvents(int seq) {
    byte[] heartbeat = {0x0a, 0x03, 0x08, (byte) 0xff, (byte) 0xff};
    byte[] frame = new byte[2 + 2 + heartbeat.length];
    frame[0] = 0x08;
    frame[1] = (byte) seq;
    frame[2] = 0x1a;
    frame[3] = (byte) heartbeat.length;
    System.arraycopy(heartbeat, 0, frame, 4, heartbeat.length);
    return frame;
  }

  private static ServerFrame next(BlockingQueue<ServerFrame> answers) throws InterruptedException {
    ServerFrame f = answers.poll(10, TimeUnit.SECONDS);
    assertThat(f).as("an answer within 10 s").isNotNull();
    return f;
  }

  private record Collect(BlockingQueue<ServerFrame> answers) implements StreamObserver<ServerFrame> {
    @Override
    public void onNext(ServerFrame frame) {
      answers.add(frame);
    }

    @Override
    public void onError(Throwable t) {
    }

    @Override
    public void onCompleted() {
    }
  }
}
