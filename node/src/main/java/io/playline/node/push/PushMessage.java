package io.playline.node.push;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.ExtensionRegistryLite;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.WireFormat;
import io.playline.proto.v1.HistoryRecord;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * One push for one user: the records to sync and the connection they came from, so receivers
 * skip it. Also the payload of a node's pub/sub channel, encoded like a protobuf message
 * ({@code 1: uid, 2: origin_session_id, 3: origin_device_id, 4: repeated HistoryRecord}), so
 * fields can be added later and older nodes skip them. Immutable.
 *
 * @param uid the user whose devices receive the records
 * @param originSessionId session of the connection that caused the change; empty for a backend push
 * @param originDeviceId device of that connection; empty when unknown or for a backend push
 * @param records the new records, at least one
 */
public record PushMessage(long uid, String originSessionId, String originDeviceId, List<HistoryRecord> records)
    implements NodeMessage {
  private static final int UID = 1;
  private static final int ORIGIN_SESSION = 2;
  private static final int ORIGIN_DEVICE = 3;
  private static final int RECORD = 4;

  public PushMessage {
    records = List.copyOf(records);
    if (uid <= 0 || records.isEmpty()) {
      throw new IllegalArgumentException("uid: " + uid + ", records: " + records.size()
          + " (expected: a positive uid and at least one record)");
    }
  }

  /**
   * A backend's push of {@code record} to {@code uid}'s devices (no origin to skip).
   *
   * @throws IllegalArgumentException when {@code uid} is not positive or the record is another user's
   */
  public static PushMessage fromBackend(long uid, HistoryRecord record) {
    if (uid <= 0 || (record.getUid() != 0 && record.getUid() != uid)) {
      throw new IllegalArgumentException("uid: " + uid + ", record.uid: " + record.getUid()
          + " (expected: a positive uid, and the record's uid unset or equal)");
    }
    HistoryRecord own = record.getUid() == uid ? record : record.toBuilder().setUid(uid).build();
    return new PushMessage(uid, "", "", List.of(own));
  }

  /**
   * Whether a connection is the origin of this push and must not receive it: the same session, or
   * the same non-empty device id (another connection of the sending device).
   */
  public boolean isOrigin(String sessionId, String deviceId) {
    return (!originSessionId.isEmpty() && originSessionId.equals(sessionId))
        || (!originDeviceId.isEmpty() && originDeviceId.equals(deviceId));
  }

  /** The wire form for another node's channel. */
  public byte[] encode() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + 96 * records.size());
    CodedOutputStream out = CodedOutputStream.newInstance(bytes);
    try {
      out.writeInt64(UID, uid);
      if (!originSessionId.isEmpty()) {
        out.writeString(ORIGIN_SESSION, originSessionId);
      }
      if (!originDeviceId.isEmpty()) {
        out.writeString(ORIGIN_DEVICE, originDeviceId);
      }
      for (HistoryRecord r : records) {
        out.writeMessage(RECORD, r);
      }
      out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException("writing to memory failed", e);
    }
    return bytes.toByteArray();
  }

  /** Parses {@link #encode()}'s output; unknown fields are skipped. */
  public static PushMessage decode(byte[] wire) throws InvalidProtocolBufferException {
    if (decodeAny(wire) instanceof PushMessage push) {
      return push;
    }
    throw new InvalidProtocolBufferException("a join notice, not a push message");
  }

  /**
   * Parses what arrives on a node channel: a push, or a {@link JoinNotice} (told apart by its
   * field 5, which a push never carries). Unknown fields are skipped.
   */
  public static NodeMessage decodeAny(byte[] wire) throws InvalidProtocolBufferException {
    CodedInputStream in = CodedInputStream.newInstance(wire);
    long uid = 0;
    String session = "";
    String device = "";
    String joined = "";
    List<HistoryRecord> records = new ArrayList<>(2);
    try {
      for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
        int field = WireFormat.getTagFieldNumber(tag);
        int type = WireFormat.getTagWireType(tag);
        if (field == UID && type == WireFormat.WIRETYPE_VARINT) {
          uid = in.readInt64();
        } else if (field == ORIGIN_SESSION && type == WireFormat.WIRETYPE_LENGTH_DELIMITED) {
          session = in.readStringRequireUtf8();
        } else if (field == ORIGIN_DEVICE && type == WireFormat.WIRETYPE_LENGTH_DELIMITED) {
          device = in.readStringRequireUtf8();
        } else if (field == RECORD && type == WireFormat.WIRETYPE_LENGTH_DELIMITED) {
          records.add(in.readMessage(HistoryRecord.parser(), ExtensionRegistryLite.getEmptyRegistry()));
        } else if (field == JoinNotice.JOINED_NODE && type == WireFormat.WIRETYPE_LENGTH_DELIMITED) {
          joined = in.readStringRequireUtf8();
        } else if (!in.skipField(tag)) {
          break;
        }
      }
    } catch (InvalidProtocolBufferException e) {
      throw e;
    } catch (IOException e) {
      throw new InvalidProtocolBufferException(e);
    }
    if (uid > 0 && !joined.isEmpty()) {
      return new JoinNotice(uid, joined);
    }
    if (uid <= 0 || records.isEmpty()) {
      throw new InvalidProtocolBufferException("push message without uid or records");
    }
    return new PushMessage(uid, session, device, records);
  }
}
