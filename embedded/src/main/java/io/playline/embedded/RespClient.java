package io.playline.embedded;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * Sends one command to a Redis server over a fresh TCP connection and reads one reply.
 *
 * <p>Enough RESP for liveness checks and {@code SHUTDOWN}; not a client library. Thread-safe
 * (stateless).
 */
final class RespClient {

  private RespClient() {}

  /**
   * Sends {@code args} as one command and returns the reply's text: a simple string, a bulk
   * string or an integer; {@code null} for a nil bulk or when the server closed the connection
   * without replying (as {@code SHUTDOWN} does).
   *
   * @throws IOException on connection failure, timeout, or an error reply
   */
  static @Nullable String call(String host, int port, Duration timeout, String... args)
      throws IOException {
    int timeoutMillis = Math.toIntExact(timeout.toMillis());
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(host, port), timeoutMillis);
      socket.setSoTimeout(timeoutMillis);
      OutputStream out = socket.getOutputStream();
      out.write(encode(args));
      out.flush();
      return readReply(new BufferedInputStream(socket.getInputStream()));
    }
  }

  private static byte[] encode(String... args) {
    StringBuilder command = new StringBuilder().append('*').append(args.length).append("\r\n");
    for (String arg : args) {
      byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
      command.append('$').append(bytes.length).append("\r\n").append(arg).append("\r\n");
    }
    return command.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static @Nullable String readReply(InputStream in) throws IOException {
    String line = readLine(in);
    if (line == null || line.isEmpty()) {
      return null;
    }
    String rest = line.substring(1);
    switch (line.charAt(0)) {
      case '+':
      case ':':
        return rest;
      case '-':
        throw new IOException("Redis replied with an error: " + rest);
      case '$':
        int length = Integer.parseInt(rest);
        if (length < 0) {
          return null;
        }
        byte[] bulk = in.readNBytes(length + 2);
        return new String(bulk, 0, Math.min(length, bulk.length), StandardCharsets.UTF_8);
      default:
        throw new IOException("Unexpected RESP reply: " + line);
    }
  }

  private static @Nullable String readLine(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    int b;
    while ((b = in.read()) != -1) {
      if (b == '\n') {
        byte[] bytes = line.toByteArray();
        int end = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
        return new String(bytes, 0, end, StandardCharsets.UTF_8);
      }
      line.write(b);
    }
    return null;
  }
}
