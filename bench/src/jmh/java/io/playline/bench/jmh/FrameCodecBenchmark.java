package io.playline.bench.jmh;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufOutputStream;
import io.netty.buffer.PooledByteBufAllocator;
import io.playline.bench.load.ServerFrames;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.ClientFrame;
import io.playline.proto.v1.Heartbeat;
import io.playline.proto.v1.HeartbeatAck;
import io.playline.proto.v1.PlayEvent;
import io.playline.proto.v1.ServerFrame;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The per-frame protobuf work on the gateway's event loop, done the way the gateway does it: a
 * {@code ClientFrame} heartbeat parsed from a pooled direct {@code ByteBuf} ({@code
 * WebSocketFrameDecoder}), a {@code ServerFrame} ack serialized into one; plus the client side
 * (serializing a heartbeat, the generator's lean ack decode). One state per thread.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class FrameCodecBenchmark {
  private final ByteBufAllocator alloc = PooledByteBufAllocator.DEFAULT;
  private final ServerFrames.View view = new ServerFrames.View();
  private ClientFrame heartbeat = ClientFrame.getDefaultInstance();
  private ServerFrame ack = ServerFrame.getDefaultInstance();
  private ByteBuf heartbeatBytes = alloc.directBuffer();
  private ByteBuf ackBytes = alloc.directBuffer();

  @Setup
  public void setUp() throws IOException {
    heartbeat = ClientFrame.newBuilder().setSeq(123_456).setHeartbeat(Heartbeat.newBuilder()
        .addEvents(PlayEvent.newBuilder().setBusiness(Business.VIDEO).setOid(987_654_321L).setProgressMs(754_000)
            .setDurationMs(2_700_000).setEventTimeMs(1_795_000_000_000L))
        .setFlagDate("2026-11-21")).build();
    ack = ServerFrame.newBuilder().setSeq(123_456).setHeartbeatAck(HeartbeatAck.newBuilder()
        .setFlagDate("2026-11-21").addFirstView(false)).build();
    heartbeatBytes.writeBytes(heartbeat.toByteArray());
    ackBytes.writeBytes(ack.toByteArray());
  }

  @TearDown
  public void tearDown() {
    heartbeatBytes.release();
    ackBytes.release();
  }

  /** Gateway inbound: ClientFrame.parseFrom(frame.content().nioBuffer()). */
  @Benchmark
  public ClientFrame decodeClientFrame() throws IOException {
    return ClientFrame.parseFrom(heartbeatBytes.nioBuffer());
  }

  /** Gateway outbound: exact-size pooled buffer, ByteBufOutputStream, writeTo; released as the transport would. */
  @Benchmark
  public int encodeServerFrame() throws IOException {
    int size = ack.getSerializedSize();
    ByteBuf buf = alloc.buffer(size, size);
    try (ByteBufOutputStream out = new ByteBufOutputStream(buf)) {
      ack.writeTo(out);
    }
    int written = buf.readableBytes();
    buf.release();
    return written;
  }

  /** Client outbound: building and serializing a one-event heartbeat. */
  @Benchmark
  public byte[] encodeClientFrame() {
    return heartbeat.toBuilder().setSeq(heartbeat.getSeq() + 1).build().toByteArray();
  }

  /** Client inbound, full parse: ServerFrame.parseFrom of an ack. */
  @Benchmark
  public ServerFrame decodeServerFrame() throws IOException {
    return ServerFrame.parseFrom(ackBytes.nioBuffer());
  }

  /** The load generator's lean ack decode (seq, body, flag date) without building a message. */
  @Benchmark
  public long decodeServerFrameLean() throws IOException {
    ServerFrames.decode(ackBytes.nioBuffer(), view, true);
    return view.seq;
  }
}
