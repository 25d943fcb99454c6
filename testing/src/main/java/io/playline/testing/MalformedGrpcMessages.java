package io.playline.testing;

import io.netty.handler.codec.http2.Http2Headers;
import io.playline.time.Time;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.zip.GZIPOutputStream;

/**
 * Request messages that no gRPC server can read, as an attacker sends them, and what a server
 * answered and logged: for tests that every kind is answered with its status and costs the log one
 * summary line, not a stack trace per message.
 */
public final class MalformedGrpcMessages {
  private MalformedGrpcMessages() {}

  /** A gRPC length-prefixed message: the compressed flag, a 4-byte {@code length}, then {@code body}. */
  public static byte[] framed(boolean compressed, int length, byte[] body) {
    return ByteBuffer.allocate(5 + body.length).put((byte) (compressed ? 1 : 0)).putInt(length).put(body).array();
  }

  /**
   * A protobuf message of any type holding one unknown field (number 15) of {@code size} zero bytes,
   * gzipped: a few hundred bytes that inflate into a well-formed message past any size limit (a
   * parser reads on until the limit stops it).
   */
  public static byte[] gzipBomb(int size) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
      gz.write(15 << 3 | 2); // field 15, length-delimited
      for (int v = size; ; v >>>= 7) { // its length, a varint
        if ((v & ~0x7F) == 0) {
          gz.write(v);
          break;
        }
        gz.write(v & 0x7F | 0x80);
      }
      gz.write(new byte[size]);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  /** What the server answered, and what grpc-java logged at WARNING or above meanwhile. */
  public record Sent(List<String> statuses, List<LogRecord> grpcRecords) {}

  /**
   * Sends {@code body} on {@code calls} calls of {@code headers} to {@code port}, {@value #PER_CONNECTION}
   * per connection (a connection's reset budget counts the server's own resets), and returns the
   * statuses answered ({@code "8 message"}) and grpc-java's own log records of WARNING and above.
   */
  public static Sent send(int port, Http2Headers headers, byte[] body, int calls) {
    List<LogRecord> records = new CopyOnWriteArrayList<>();
    Handler capture = new Handler() {
      @Override
      public void publish(LogRecord record) {
        if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
          records.add(record);
        }
      }

      @Override
      public void flush() {}

      @Override
      public void close() {}
    };
    java.util.logging.Logger grpc = java.util.logging.Logger.getLogger("io.grpc");
    grpc.addHandler(capture);
    List<String> statuses = new ArrayList<>();
    try {
      for (int sent = 0; sent < calls; sent += PER_CONNECTION) {
        int now = Math.min(PER_CONNECTION, calls - sent);
        try (RawHttp2Client client = RawHttp2Client.connect(port)) {
          for (int i = 0; i < now; i++) {
            client.call(headers, body);
          }
          long deadline = Time.SYSTEM.nanoTime() + TimeUnit.SECONDS.toNanos(20);
          while (client.statuses.size() + client.rstStreamsReceived.get() < now && !client.closed()
              && Time.SYSTEM.nanoTime() < deadline) {
            try {
              Thread.sleep(5); // polls the condition (this module has no Awaitility outside its tests)
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              break;
            }
          }
          statuses.addAll(client.statuses);
        }
      }
    } finally {
      grpc.removeHandler(capture);
    }
    return new Sent(statuses, records);
  }

  /** Calls sent per connection by {@link #send}. */
  public static final int PER_CONNECTION = 50;
}
