package io.playline.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.playline.gateway.config.GatewayConfig;
import io.playline.proto.v1.ClientFrame;
import io.playline.proto.v1.ServerFrame;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * A WebSocket client over a plain socket, for what the JDK's client cannot do: send bytes before
 * the upgrade (a PROXY protocol header), shrink its receive buffer, or never read.
 */
final class RawWebSocket implements AutoCloseable {
  final Socket socket;
  final OutputStream out;
  private final DataInputStream in;

  /** Connects to {@code port} with a {@code receiveBuffer}-byte receive buffer (0 = default). */
  RawWebSocket(int port, int receiveBuffer) throws IOException {
    this(connect(port, receiveBuffer));
  }

  /** Speaks over {@code connected}, e.g. a TLS socket layered over a plain one that sent a PROXY header. */
  RawWebSocket(Socket connected) throws IOException {
    socket = connected;
    socket.setSoTimeout(10_000);
    out = new BufferedOutputStream(socket.getOutputStream(), 64 * 1024);
    in = new DataInputStream(socket.getInputStream());
  }

  private static Socket connect(int port, int receiveBuffer) throws IOException {
    Socket socket = new Socket();
    if (receiveBuffer > 0) {
      socket.setReceiveBufferSize(receiveBuffer);
    }
    socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
    return socket;
  }

  /** Writes {@code bytes} as they are (e.g. a PROXY header), unflushed. */
  RawWebSocket raw(byte[] bytes) throws IOException {
    out.write(bytes);
    return this;
  }

  /** Sends the upgrade request and reads the answer's head; returns its status line. */
  String upgrade() throws IOException {
    out.write(upgradeRequest());
    out.flush();
    StringBuilder head = new StringBuilder();
    while (!head.toString().endsWith("\r\n\r\n")) {
      int b = in.read();
      if (b < 0) {
        throw new IOException("closed during the upgrade: " + head);
      }
      head.append((char) b);
    }
    return head.substring(0, head.indexOf("\r\n"));
  }

  /** The WebSocket upgrade request this client sends. */
  static byte[] upgradeRequest() {
    return ("GET " + GatewayConfig.WS_PATH + " HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
        + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
        .getBytes(StandardCharsets.US_ASCII);
  }

  /** Upgrades and asserts it was accepted. */
  RawWebSocket upgraded() throws IOException {
    assertThat(upgrade()).startsWith("HTTP/1.1 101");
    return this;
  }

  /** Sends one frame, unflushed. */
  void send(ClientFrame frame) throws IOException {
    sendFrame(out, frame.toByteArray());
  }

  /** A frame from the server: its opcode (0x2 binary, 0x8 close, 0xA pong...) and payload. */
  record Frame(int opcode, byte[] payload) {
    /** A close frame's status code. */
    int closeCode() {
      assertThat(opcode).as("opcode").isEqualTo(0x8);
      return ((payload[0] & 0xff) << 8) | (payload[1] & 0xff);
    }

    ServerFrame serverFrame() throws IOException {
      assertThat(opcode).as("opcode").isEqualTo(0x2);
      return ServerFrame.parseFrom(payload);
    }
  }

  /** The next frame from the server, of any kind. */
  Frame nextFrame() throws IOException {
    out.flush();
    int opcode = in.readUnsignedByte() & 0x0f;
    long length = in.readUnsignedByte() & 0x7f;
    if (length == 126) {
      length = in.readUnsignedShort();
    } else if (length == 127) {
      length = in.readLong();
    }
    byte[] payload = new byte[(int) length];
    in.readFully(payload);
    return new Frame(opcode, payload);
  }

  /** The next binary frame from the server, parsed (close frames and others fail). */
  ServerFrame next() throws IOException {
    Frame f = nextFrame();
    if (f.opcode() != 0x2) {
      throw new IOException("not a binary frame: opcode " + f.opcode() + " (" + f.payload().length + " bytes)");
    }
    return ServerFrame.parseFrom(f.payload());
  }

  /** Sends a ping (or, with {@code pong}, an unsolicited pong) with {@code payload}, unflushed. */
  void sendControl(boolean pong, byte[] payload) throws IOException {
    writeFrame(out, pong ? 0x8A : 0x89, payload, new byte[4]);
  }

  /** Reads until the server closes the socket; true when it did (within the read timeout), by FIN or reset. */
  boolean closedByServer() {
    return drainedUntilEnd(true);
  }

  /**
   * Reads until the server's FIN: true on a clean end of stream only, false on a reset (which
   * {@link #closedByServer} also accepts) or when no end came within the read timeout.
   */
  boolean endedCleanly() {
    return drainedUntilEnd(false);
  }

  private boolean drainedUntilEnd(boolean resetCounts) {
    try {
      InputStream raw = socket.getInputStream();
      byte[] sink = new byte[4096];
      while (raw.read(sink) >= 0) {
        // drain
      }
      return true;
    } catch (IOException e) {
      return resetCounts && e.getMessage() != null && e.getMessage().contains("reset");
    }
  }

  /**
   * True once the server has closed the socket itself, not only its sending side: a ping written
   * now is answered with a reset, which a later write reports (a half-closed node reads and drops it).
   */
  boolean resetOnWrite() {
    try {
      sendControl(false, new byte[] {1});
      out.flush();
      return false;
    } catch (IOException e) {
      return true;
    }
  }

  /** One masked binary frame (clients must mask; the mask is zero, which is allowed). */
  static void sendFrame(OutputStream out, byte[] payload) throws IOException {
    writeFrame(out, 0x82, payload, new byte[4]);
  }

  /**
   * One client frame of any kind: {@code first} is FIN, RSV and opcode; masked with {@code
   * maskKey} (4 bytes), or sent unmasked (as no client may) when it is null.
   */
  static void writeFrame(OutputStream out, int first, byte[] payload, byte @Nullable [] maskKey) throws IOException {
    out.write(first);
    int mask = maskKey != null ? 0x80 : 0;
    if (payload.length < 126) {
      out.write(mask | payload.length);
    } else if (payload.length < 65_536) {
      out.write(mask | 126);
      out.write(payload.length >>> 8);
      out.write(payload.length & 0xff);
    } else {
      out.write(mask | 127);
      out.write(ByteBuffer.allocate(8).putLong(payload.length).array());
    }
    if (maskKey == null) {
      out.write(payload);
      return;
    }
    out.write(maskKey);
    byte[] masked = payload.clone();
    for (int i = 0; i < masked.length; i++) {
      masked[i] ^= maskKey[i & 3];
    }
    out.write(masked);
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
