package io.playline.bench.jmh;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.playline.api.connect.JsonPrinter;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.HistoryRecord;
import io.playline.proto.v1.ListHistoryResponse;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * A {@code ListHistory} page of 20 records as the Connect port answers it in JSON, into a pooled
 * buffer: printed by JsonFormat's compact printer (then encoded to UTF-8, as the port did) against
 * {@code JsonPrinter}, which the port uses now. Same bytes either way ({@code JsonPrinterTest}).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ConnectJsonBenchmark {
  private static final JsonFormat.Printer JSON_FORMAT = JsonFormat.printer().omittingInsignificantWhitespace();
  private final ByteBufAllocator alloc = PooledByteBufAllocator.DEFAULT;
  private ListHistoryResponse page = ListHistoryResponse.getDefaultInstance();

  @Setup
  public void setUp() {
    ListHistoryResponse.Builder b = ListHistoryResponse.newBuilder().setHasMore(true);
    for (int i = 0; i < 20; i++) {
      b.addRecords(HistoryRecord.newBuilder().setUid(4_200_042L).setBusiness(Business.VIDEO).setOid(987_654_321L + i)
          .setSubId(i).setProgressMs(754_000 + i).setDurationMs(2_700_000).setViewTimeMs(1_795_000_000_000L - i)
          .setDeviceId("device-" + i).setPlatform("android"));
    }
    b.getNextBuilder().setViewTimeMs(1_794_999_999_981L).getItemBuilder().setBusiness(Business.VIDEO).setOid(1);
    page = b.build();
  }

  /** What the port did before: a String from JsonFormat, its UTF-8 bytes, wrapped. */
  @Benchmark
  public int jsonFormat() throws InvalidProtocolBufferException {
    ByteBuf out = alloc.heapBuffer();
    out.writeBytes(JSON_FORMAT.print(page).getBytes(StandardCharsets.UTF_8));
    int n = out.readableBytes();
    out.release();
    return n;
  }

  /** What the port does: the page's binary form transcribed into the buffer. */
  @Benchmark
  public int jsonPrinter() throws InvalidProtocolBufferException {
    ByteBuf out = alloc.heapBuffer(2 * page.getSerializedSize() + 16);
    JsonPrinter.print(page, out);
    int n = out.readableBytes();
    out.release();
    return n;
  }
}
