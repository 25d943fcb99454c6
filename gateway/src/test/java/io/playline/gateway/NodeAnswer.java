package io.playline.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.InvalidProtocolBufferException;
import io.playline.proto.v1.Error.Code;
import io.playline.proto.v1.ServerFrame;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Reading what a gateway node sends on a raw WebSocket connection, keeping every byte, and judging
 * it as any client would have to read it ({@link #check}). For {@link WebSocketFuzzTest}.
 */
final class NodeAnswer {
  private NodeAnswer() {}

  /** Reads the upgrade answer's head into {@code answer}; true when it was 101. */
  static boolean readHead(DataInputStream in, ByteArrayOutputStream answer) throws IOException {
    StringBuilder head = new StringBuilder();
    try {
      while (!head.toString().endsWith("\r\n\r\n")) {
        int b = in.read();
        if (b < 0) {
          return false;
        }
        head.append((char) b);
        answer.write(b);
      }
    } catch (IOException e) {
      return false;
    }
    return head.toString().startsWith("HTTP/1.1 101");
  }

  /** Reads one frame into {@code answer} and returns it when it is a binary ServerFrame, else null. */
  static ServerFrame readServerFrame(DataInputStream in, ByteArrayOutputStream answer) throws IOException {
    try {
      int b0 = in.readUnsignedByte();
      int b1 = in.readUnsignedByte();
      answer.write(b0);
      answer.write(b1);
      long length = b1 & 0x7f;
      if (length == 126) {
        length = in.readUnsignedShort();
        answer.write((int) (length >>> 8));
        answer.write((int) length & 0xff);
      }
      assertThat(length).as("server frame length").isLessThan(126 + 65_536);
      byte[] payload = new byte[(int) length];
      in.readFully(payload);
      answer.write(payload);
      return (b0 & 0x0f) == 2 ? ServerFrame.parseFrom(payload) : null;
    } catch (EOFException e) {
      return null;
    } catch (IOException e) {
      if (isReset(e)) {
        return null;
      }
      throw e;
    }
  }

  /** Reads until the node closes the connection; true when it reset it. A read timeout fails the input (a hang). */
  static boolean drain(InputStream in, ByteArrayOutputStream answer) throws IOException {
    byte[] buf = new byte[8192];
    try {
      for (int n; (n = in.read(buf)) >= 0; ) {
        answer.write(buf, 0, n);
      }
      return false;
    } catch (SocketTimeoutException e) {
      throw new AssertionError("the node neither answered nor closed within 20 s of the client's end of input");
    } catch (IOException e) {
      if (isReset(e)) {
        return true;
      }
      throw e;
    }
  }

  static boolean isReset(IOException e) {
    return e.getMessage() != null && (e.getMessage().contains("reset") || e.getMessage().contains("Broken pipe"));
  }

  /**
   * What the node sent (everything, as read by a client): an HTTP head, then WebSocket frames a
   * client can read, with no INTERNAL error and only documented close codes. {@code
   * mayRefuseUpgrade}: the node may refuse the connection before the upgrade (a PROXY header was
   * expected); {@code reset}: the node reset the connection, so the answer may end anywhere.
   */
  static void check(byte[] answer, boolean mayRefuseUpgrade, boolean reset) throws IOException {
    if (answer.length == 0) {
      // Only a node refusing a PROXY header, or resetting, may close without a word.
      assertThat(mayRefuseUpgrade || reset).as("closed without answering the upgrade").isTrue();
      return;
    }
    DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(answer));
    StringBuilder head = new StringBuilder();
    while (!head.toString().endsWith("\r\n\r\n")) {
      int b = in.read();
      if (b < 0) {
        assertThat(reset).as("the answer's head ends early: %s", head).isTrue();
        return;
      }
      head.append((char) b);
    }
    if (mayRefuseUpgrade && !head.toString().startsWith("HTTP/1.1 101")) {
      assertThat(head.toString()).startsWith("HTTP/1.1 4");
      return;
    }
    assertThat(head.toString()).as("upgrade answer").startsWith("HTTP/1.1 101");
    boolean closed = false;
    while (in.available() > 0) {
      assertThat(closed).as("a frame after the close frame").isFalse();
      int b0 = in.readUnsignedByte();
      if (in.available() == 0 && reset) {
        return;
      }
      int b1 = in.readUnsignedByte();
      assertThat(b1 & 0x80).as("server frames are not masked").isZero();
      long length = b1 & 0x7f;
      if (length == 126) {
        length = in.readUnsignedShort();
      } else if (length == 127) {
        length = in.readLong();
      }
      if (length > in.available()) {
        assertThat(reset).as("a frame cut short without a reset").isTrue();
        return;
      }
      byte[] payload = new byte[(int) length];
      in.readFully(payload);
      assertThat(b0 & 0x80).as("server frames are whole").isNotZero();
      switch (b0 & 0x0f) {
        case 0x2 -> {
          ServerFrame frame;
          try {
            frame = ServerFrame.parseFrom(payload);
          } catch (InvalidProtocolBufferException e) {
            throw new AssertionError("a binary frame that is not a ServerFrame", e);
          }
          assertThat(frame.hasError() && frame.getError().getCode() == Code.INTERNAL)
              .as("INTERNAL error: %s", frame).isFalse();
        }
        case 0x8 -> {
          closed = true;
          if (payload.length > 0) {
            assertThat(payload.length).isGreaterThanOrEqualTo(2);
            int code = ((payload[0] & 0xff) << 8) | (payload[1] & 0xff);
            boolean documented = code == 1000 || code == 1002 || code == 1003 || code == 1007 || code == 1008
                || code == 1009 || (code > 4000 && Code.forNumber(code - 4000) != null && code != 4005);
            assertThat(documented).as("close code %d", code).isTrue();
            try {
              StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                  .decode(ByteBuffer.wrap(payload, 2, payload.length - 2));
            } catch (CharacterCodingException e) {
              throw new AssertionError("close reason is not UTF-8", e);
            }
          }
        }
        case 0xA -> { } // pong, answering a ping
        default -> throw new AssertionError("server frame with opcode " + (b0 & 0x0f));
      }
    }
  }
}
