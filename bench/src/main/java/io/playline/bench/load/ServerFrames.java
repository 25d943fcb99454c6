package io.playline.bench.load;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;
import io.playline.proto.v1.ServerFrame;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.jspecify.annotations.Nullable;

/**
 * Lean decoding of the few {@code ServerFrame} fields a load generator needs (seq, which body,
 * the error code, the flag date) without building the message. Also accepts a bare echo server's
 * answer, a {@code ClientFrame} sent back unchanged: its heartbeat sits where an ack would (field
 * 3) and its auth where auth_ok would (field 2). Stateless; any thread.
 */
public final class ServerFrames {
  public static final int AUTH_OK = ServerFrame.AUTH_OK_FIELD_NUMBER;
  public static final int HEARTBEAT_ACK = ServerFrame.HEARTBEAT_ACK_FIELD_NUMBER;
  public static final int ERROR = ServerFrame.ERROR_FIELD_NUMBER;
  public static final int PROGRESS = ServerFrame.PROGRESS_FIELD_NUMBER;
  public static final int HISTORY_PAGE = ServerFrame.HISTORY_PAGE_FIELD_NUMBER;
  private static final int FLAG_DATE_LENGTH = "2026-11-21".length();

  private ServerFrames() {}

  /** What one frame said; mutable so a connection's event loop can reuse one instance. */
  public static final class View {
    public long seq;
    /** The body's field number, 0 when none. */
    public int body;
    /** The Error code number when {@link #body} is {@link #ERROR}, else 0. */
    public int errorCode;
    /** The flag date of an auth_ok or heartbeat_ack when asked for and present, else null. */
    public @Nullable String flagDate;
    /** Records in a progress result or history page (field 1 of both). */
    public int records;

    void clear() {
      records = 0;
      seq = 0;
      body = 0;
      errorCode = 0;
      flagDate = null;
    }
  }

  /** Decodes {@code frame} into {@code out}; {@code wantFlag} also extracts the flag date. */
  public static void decode(ByteBuffer frame, View out, boolean wantFlag) throws IOException {
    out.clear();
    CodedInputStream in = CodedInputStream.newInstance(frame);
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      int field = WireFormat.getTagFieldNumber(tag);
      int wire = WireFormat.getTagWireType(tag);
      if (field == ServerFrame.SEQ_FIELD_NUMBER && wire == WireFormat.WIRETYPE_VARINT) {
        out.seq = in.readUInt64();
      } else if (wire == WireFormat.WIRETYPE_LENGTH_DELIMITED && field >= AUTH_OK) {
        out.body = field;
        int length = in.readRawVarint32();
        int limit = in.pushLimit(length);
        if (field == ERROR) {
          out.errorCode = readVarintField(in, 1);
        } else if (wantFlag && field == HEARTBEAT_ACK) {
          out.flagDate = readDateField(in, 1);
        } else if (wantFlag && field == AUTH_OK) {
          out.flagDate = readDateField(in, 5);
        } else if (field == PROGRESS || field == HISTORY_PAGE) {
          out.records = countField(in, 1);
        }
        in.skipRawBytes(in.getBytesUntilLimit());
        in.popLimit(limit);
      } else if (!in.skipField(tag)) {
        return;
      }
    }
  }

  private static int readVarintField(CodedInputStream in, int wanted) throws IOException {
    int value = 0;
    while (!in.isAtEnd()) {
      int tag = in.readTag();
      if (WireFormat.getTagFieldNumber(tag) == wanted && WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_VARINT) {
        value = in.readInt32();
      } else if (!in.skipField(tag)) {
        break;
      }
    }
    return value;
  }

  /** How many times field {@code wanted} occurs (a repeated message field). */
  private static int countField(CodedInputStream in, int wanted) throws IOException {
    int n = 0;
    while (!in.isAtEnd()) {
      int tag = in.readTag();
      if (WireFormat.getTagFieldNumber(tag) == wanted) {
        n++;
      }
      if (!in.skipField(tag)) {
        break;
      }
    }
    return n;
  }

  /** A string field that looks like an ISO date; anything else (e.g. an echoed event) is ignored. */
  private static @Nullable String readDateField(CodedInputStream in, int wanted) throws IOException {
    String value = null;
    while (!in.isAtEnd()) {
      int tag = in.readTag();
      if (WireFormat.getTagFieldNumber(tag) == wanted
          && WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_LENGTH_DELIMITED) {
        byte[] bytes = in.readByteArray();
        if (bytes.length == FLAG_DATE_LENGTH && bytes[4] == '-' && bytes[7] == '-') {
          value = new String(bytes, java.nio.charset.StandardCharsets.US_ASCII);
        }
      } else if (!in.skipField(tag)) {
        break;
      }
    }
    return value;
  }

  /** Fills {@code out} from a parsed frame (the gRPC transport gets whole messages). */
  public static void fromMessage(ServerFrame frame, View out) {
    out.clear();
    out.seq = frame.getSeq();
    out.body = frame.getBodyCase().getNumber();
    switch (frame.getBodyCase()) {
      case ERROR -> out.errorCode = frame.getError().getCodeValue();
      case HEARTBEAT_ACK -> out.flagDate = emptyToNull(frame.getHeartbeatAck().getFlagDate());
      case AUTH_OK -> out.flagDate = emptyToNull(frame.getAuthOk().getFlagDate());
      case PROGRESS -> out.records = frame.getProgress().getRecordsCount();
      case HISTORY_PAGE -> out.records = frame.getHistoryPage().getRecordsCount();
      default -> { }
    }
  }

  private static @Nullable String emptyToNull(String s) {
    return s.isEmpty() ? null : s;
  }
}
