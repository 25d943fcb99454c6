package io.playline.bench.jmh;

import com.google.protobuf.CodedOutputStream;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufOutputStream;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocket08FrameEncoder;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.playline.core.write.WriteOutcome;
import io.playline.gateway.stream.AckEncoding;
import io.playline.gateway.ws.BinaryFrames;
import io.playline.proto.v1.ServerFrame;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * A heartbeat's ack from its fields to the bytes a WebSocket connection's pipeline hands the socket,
 * three ways (what comes out is released, as the socket's write would): the protobuf messages built
 * and serialized through a {@code ByteBufOutputStream} into a buffer that Netty's WebSocket frame
 * encoder frames into a second one (the edge until 2026-12-07; the encoder's {@code encode} called
 * as its pipeline step calls it), the messages serialized straight into one buffer behind their frame
 * header (every other frame since), and the ack written by hand into that buffer ({@link
 * AckEncoding}, the ack since), which the encoder's step passes on untouched. One state per thread.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class AckPathBenchmark {
  private static final String TODAY = "2026-12-07";
  private final ByteBufAllocator alloc = PooledByteBufAllocator.DEFAULT;
  private final Encoder encoder = new Encoder();
  private final EmbeddedChannel channel = new EmbeddedChannel(encoder);
  private final ChannelHandlerContext ctx = channel.pipeline().firstContext();
  private final List<Object> out = new ArrayList<>(2);
  private final WriteOutcome outcome = new WriteOutcome(false, new byte[] {WriteOutcome.UPDATED});
  private long seq;

  @TearDown
  public void tearDown() {
    channel.finishAndReleaseAll();
  }

  /** Messages built, serialized into their own buffer, framed by Netty's encoder into another. */
  @Benchmark
  public int messageThenNettysFrame() throws Exception {
    ServerFrame frame = AckEncoding.frame(++seq, TODAY, false, outcome);
    int size = frame.getSerializedSize();
    ByteBuf payload = alloc.buffer(size, size);
    try (ByteBufOutputStream stream = new ByteBufOutputStream(payload)) {
      frame.writeTo(stream);
    }
    BinaryWebSocketFrame message = new BinaryWebSocketFrame(payload);
    try {
      encoder.encode(ctx, message, out);
    } finally {
      message.release(); // as the encoder's step does once encoded
    }
    return drain();
  }

  /** Messages built, serialized straight into one buffer behind the frame header. */
  @Benchmark
  public int messageIntoOneFrameBuffer() throws IOException {
    ServerFrame frame = AckEncoding.frame(++seq, TODAY, false, outcome);
    int size = frame.getSerializedSize();
    ByteBuf buf = BinaryFrames.allocate(alloc, size);
    CodedOutputStream coded = CodedOutputStream.newInstance(buf.internalNioBuffer(buf.writerIndex(), size));
    frame.writeTo(coded);
    buf.writerIndex(buf.writerIndex() + size);
    out.add(buf);
    return drain();
  }

  /** The ack written by hand behind the frame header: no message at all. */
  @Benchmark
  public int handWrittenIntoOneFrameBuffer() {
    long s = ++seq;
    ByteBuf buf = BinaryFrames.allocate(alloc, AckEncoding.size(s, TODAY, false, outcome));
    AckEncoding.write(buf, s, TODAY, false, outcome);
    out.add(buf);
    return drain();
  }

  private int drain() {
    int bytes = 0;
    for (Object o : out) {
      ByteBuf buf = (ByteBuf) o;
      bytes += buf.readableBytes();
      buf.release();
    }
    out.clear();
    return bytes;
  }

  /** Netty's server frame encoder, its {@code encode} callable as its pipeline step calls it. */
  private static final class Encoder extends WebSocket08FrameEncoder {
    Encoder() {
      super(false);
    }

    @Override
    public void encode(ChannelHandlerContext ctx, WebSocketFrame msg, List<Object> out) throws Exception {
      super.encode(ctx, msg, out);
    }
  }
}
