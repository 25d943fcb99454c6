package io.playline.api.connect;

import static io.playline.api.connect.JsonPlan.WIRE_FIXED32;
import static io.playline.api.connect.JsonPlan.WIRE_FIXED64;
import static io.playline.api.connect.JsonPlan.WIRE_LENGTH;
import static io.playline.api.connect.JsonPlan.WIRE_VARINT;
import static io.playline.api.connect.JsonPlan.ascii;
import static io.playline.api.connect.JsonPlan.packed;
import static io.playline.api.connect.JsonPlan.wireTypeOf;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumDescriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import io.netty.buffer.ByteBuf;
import io.playline.api.connect.JsonPlan.Field;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import org.jspecify.annotations.Nullable;

/**
 * One message's binary form being written out as JSON by its types' {@link JsonPlan}s, into an
 * array of its own (a ByteBuf's per-byte writes check its state each time; the array is copied out
 * once). Throws {@link NotCanonical} for a binary form JsonFormat would not print this way (the
 * caller then lets JsonFormat print the message). One use, one thread.
 */
final class JsonTranscription {
  /** Nesting past this goes to the fallback (the schema's own types nest a few levels). */
  private static final int MAX_DEPTH = 64;
  /** What a string's byte is written as, when not as itself: Gson's escapes, HTML-safe, as JsonFormat uses. */
  private static final byte[][] ESCAPES = new byte[128][];

  static {
    for (int c = 0; c < 0x20; c++) {
      ESCAPES[c] = String.format("\\u%04x", c).getBytes(StandardCharsets.US_ASCII);
    }
    ESCAPES['\t'] = ascii("\\t");
    ESCAPES['\b'] = ascii("\\b");
    ESCAPES['\n'] = ascii("\\n");
    ESCAPES['\r'] = ascii("\\r");
    ESCAPES['\f'] = ascii("\\f");
    ESCAPES['"'] = ascii("\\\"");
    ESCAPES['\\'] = ascii("\\\\");
    for (char c : new char[] {'<', '>', '&', '=', '\''}) {
      ESCAPES[c] = String.format("\\u%04x", (int) c).getBytes(StandardCharsets.US_ASCII);
    }
  }

  /** The binary form is not one the plan transcribes as JsonFormat would print it: the fallback prints it. */
  static final class NotCanonical extends Exception {
    static final long serialVersionUID = 1L;
    static final NotCanonical INSTANCE = new NotCanonical();

    private NotCanonical() {
      super(null, null, false, false);
    }
  }

  private final byte[] wire;
  private final byte[] digits = new byte[20];
  private byte[] out;
  private int size;
  private int pos;

  JsonTranscription(byte[] wire) {
    this.wire = wire;
    this.out = new byte[2 * wire.length + 16];
  }

  /** Appends the JSON written so far to {@code target}. */
  void copyTo(ByteBuf target) {
    target.writeBytes(out, 0, size);
  }

  private void put(int b) {
    if (size == out.length) {
      out = Arrays.copyOf(out, 2 * size);
    }
    out[size++] = (byte) b;
  }

  private void put(byte[] bytes) {
    put(bytes, 0, bytes.length);
  }

  private void put(byte[] bytes, int offset, int length) {
    if (size + length > out.length) {
      out = Arrays.copyOf(out, Math.max(2 * out.length, size + length));
    }
    System.arraycopy(bytes, offset, out, size, length);
    size += length;
  }

  private void put(String ascii) {
    for (int i = 0; i < ascii.length(); i++) {
      put(ascii.charAt(i));
    }
  }

  /** The message in {@code wire[start, end)}; fields in number order, a repeated one's values together. */
  void message(JsonPlan plan, int start, int end, int depth) throws NotCanonical {
    if (depth > MAX_DEPTH) {
      throw NotCanonical.INSTANCE;
    }
    pos = start;
    put('{');
    int last = 0;
    boolean inArray = false;
    Field[] byNumber = plan.byNumber();
    while (pos < end) {
      long tag = varint();
      int number = (int) (tag >>> 3);
      int wireType = (int) (tag & 7);
      Field field = number < byNumber.length ? byNumber[number] : null;
      if (field == null) {
        skip(wireType, end);
        continue;
      }
      if (number < last || number == last && !field.repeated()) {
        throw NotCanonical.INSTANCE;
      }
      if (number != last) {
        if (inArray) {
          put(']');
        }
        if (last != 0) {
          put(',');
        }
        put(field.name());
        inArray = field.repeated();
        if (inArray) {
          put('[');
        }
      } else {
        put(',');
      }
      last = number;
      if (field.repeated() && wireType == WIRE_LENGTH && packed(field.type())) {
        int length = length(end);
        int packedEnd = pos + length;
        boolean first = true;
        while (pos < packedEnd) {
          if (!first) {
            put(',');
          }
          first = false;
          value(field, wireTypeOf(field.type()), packedEnd, depth);
        }
        if (first || pos != packedEnd) {
          throw NotCanonical.INSTANCE; // an empty packed run: an element count JsonFormat would not print
        }
      } else {
        value(field, wireType, end, depth);
      }
    }
    if (pos != end) {
      throw NotCanonical.INSTANCE;
    }
    if (inArray) {
      put(']');
    }
    put('}');
  }

  private void value(Field field, int wireType, int end, int depth) throws NotCanonical {
    if (wireType != wireTypeOf(field.type())) {
      throw NotCanonical.INSTANCE;
    }
    switch (field.type()) {
      case INT32, SFIXED32 -> decimal(wireType == WIRE_VARINT ? (int) varint() : fixed32());
      case SINT32 -> decimal(zigzag32((int) varint()));
      case UINT32 -> decimal(varint() & 0xFFFF_FFFFL);
      case FIXED32 -> decimal(fixed32() & 0xFFFF_FFFFL);
      case INT64 -> quoted(varint());
      case SINT64 -> quoted(zigzag64(varint()));
      case SFIXED64 -> quoted(fixed64());
      case UINT64 -> quotedUnsigned(varint());
      case FIXED64 -> quotedUnsigned(fixed64());
      case BOOL -> put(varint() != 0 ? TRUE : FALSE);
      case FLOAT -> floating(Float.intBitsToFloat(fixed32()));
      case DOUBLE -> floating(Double.longBitsToDouble(fixed64()));
      case ENUM -> enumValue(field.enumType(), (int) varint());
      case STRING -> {
        int length = length(end);
        string(pos, pos + length);
        pos += length;
      }
      case BYTES -> {
        int length = length(end);
        put('"');
        put(Base64.getEncoder().encode(Arrays.copyOfRange(wire, pos, pos + length)));
        put('"');
        pos += length;
      }
      case MESSAGE -> {
        int length = length(end);
        int nestedEnd = pos + length;
        Descriptor type = field.messageType();
        message(JsonPlan.of(type), pos, nestedEnd, depth + 1);
      }
      default -> throw NotCanonical.INSTANCE;
    }
  }

  private static final byte[] TRUE = ascii("true");
  private static final byte[] FALSE = ascii("false");

  private void enumValue(@Nullable EnumDescriptor type, int number) {
    EnumValueDescriptor value = type == null ? null : type.findValueByNumber(number);
    if (value == null) {
      decimal(number); // a number the schema does not name prints as the number
    } else {
      put('"');
      put(value.getName());
      put('"');
    }
  }

  /** A string's UTF-8 bytes, escaped as Gson escapes; bytes that are not UTF-8 go to the fallback. */
  private void string(int start, int end) throws NotCanonical {
    put('"');
    int run = start;
    int i = start;
    while (i < end) {
      int b = wire[i];
      if (b >= 0) {
        byte[] escape = ESCAPES[b];
        if (escape != null) {
          put(wire, run, i - run);
          put(escape);
          run = i + 1;
        }
        i++;
        continue;
      }
      int length = utf8Sequence(i, end);
      if (length == 3 && wire[i] == (byte) 0xE2 && wire[i + 1] == (byte) 0x80
          && (wire[i + 2] == (byte) 0xA8 || wire[i + 2] == (byte) 0xA9)) {
        put(wire, run, i - run);
        put(wire[i + 2] == (byte) 0xA8 ? LINE_SEPARATOR : PARAGRAPH_SEPARATOR);
        run = i + 3;
      }
      i += length;
    }
    put(wire, run, end - run);
    put('"');
  }

  private static final byte[] LINE_SEPARATOR = ascii("\\u2028");
  private static final byte[] PARAGRAPH_SEPARATOR = ascii("\\u2029");

  /** The length of the well-formed UTF-8 sequence at {@code i} (RFC 3629: no overlong forms, no surrogates). */
  private int utf8Sequence(int i, int end) throws NotCanonical {
    int b0 = wire[i] & 0xFF;
    int length = b0 < 0xC2 ? 0 : b0 < 0xE0 ? 2 : b0 < 0xF0 ? 3 : b0 < 0xF5 ? 4 : 0;
    if (length == 0 || i + length > end) {
      throw NotCanonical.INSTANCE;
    }
    int b1 = wire[i + 1] & 0xFF;
    if (b0 == 0xE0 && b1 < 0xA0 || b0 == 0xED && b1 >= 0xA0 || b0 == 0xF0 && b1 < 0x90 || b0 == 0xF4 && b1 >= 0x90) {
      throw NotCanonical.INSTANCE;
    }
    for (int k = 1; k < length; k++) {
      if ((wire[i + k] & 0xC0) != 0x80) {
        throw NotCanonical.INSTANCE;
      }
    }
    return length;
  }

  private void floating(double value) {
    if (Double.isNaN(value)) {
      put("\"NaN\"");
    } else if (Double.isInfinite(value)) {
      put(value < 0 ? "\"-Infinity\"" : "\"Infinity\"");
    } else {
      put(Double.toString(value));
    }
  }

  private void floating(float value) {
    if (Float.isNaN(value) || Float.isInfinite(value)) {
      floating((double) value);
    } else {
      put(Float.toString(value));
    }
  }

  private void quoted(long value) {
    put('"');
    decimal(value);
    put('"');
  }

  private void quotedUnsigned(long value) {
    if (value >= 0) {
      quoted(value);
    } else {
      put('"');
      put(Long.toUnsignedString(value));
      put('"');
    }
  }

  /** {@code value} in decimal ASCII, written digit by digit (no string). */
  private void decimal(long value) {
    if (value == Long.MIN_VALUE) {
      put(Long.toString(value));
      return;
    }
    if (value < 0) {
      put('-');
      value = -value;
    }
    int i = digits.length;
    do {
      long rest = value / 10;
      digits[--i] = (byte) ('0' + (value - rest * 10));
      value = rest;
    } while (value != 0);
    put(digits, i, digits.length - i);
  }

  private long varint() throws NotCanonical {
    long result = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      byte b = wire[pos++];
      result |= (long) (b & 0x7F) << shift;
      if (b >= 0) {
        return result;
      }
    }
    throw NotCanonical.INSTANCE;
  }

  private int fixed32() {
    int v = wire[pos] & 0xFF | (wire[pos + 1] & 0xFF) << 8 | (wire[pos + 2] & 0xFF) << 16 | (wire[pos + 3] & 0xFF) << 24;
    pos += 4;
    return v;
  }

  private long fixed64() {
    long v = fixed32() & 0xFFFF_FFFFL;
    return v | (long) fixed32() << 32;
  }

  /** A length-delimited value's length, checked against the enclosing end. */
  private int length(int end) throws NotCanonical {
    long length = varint();
    if (length < 0 || length > end - pos) {
      throw NotCanonical.INSTANCE;
    }
    return (int) length;
  }

  /** Passes over a field the type does not have. */
  private void skip(int wireType, int end) throws NotCanonical {
    switch (wireType) {
      case WIRE_VARINT -> varint();
      case WIRE_FIXED64 -> pos += 8;
      case WIRE_LENGTH -> {
        int length = length(end); // read first: it moves pos past the length's own bytes
        pos += length;
      }
      case WIRE_FIXED32 -> pos += 4;
      default -> throw NotCanonical.INSTANCE; // groups
    }
    if (pos > end) {
      throw NotCanonical.INSTANCE;
    }
  }

  private static int zigzag32(int n) {
    return n >>> 1 ^ -(n & 1);
  }

  private static long zigzag64(long n) {
    return n >>> 1 ^ -(n & 1);
  }
}
