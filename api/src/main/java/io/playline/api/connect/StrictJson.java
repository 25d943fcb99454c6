package io.playline.api.connect;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import com.google.gson.JsonPrimitive;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import io.playline.node.errors.KnownEnums;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Checks a JSON request against its message's descriptor before the proto3 JSON parser sees it,
 * so that nothing the parser would drop silently can change what a request means: an enum value
 * (by name or number, in a singular, repeated or nested field) that the enum does not define is
 * refused — the parser, ignoring unknown fields, drops such a value, and a repeated field that
 * loses its every value reads as empty, which for a filter or a clear means "every business". A
 * known field holding the wrong JSON type is refused too, with the field and the rule rather than
 * the parser's text. Fields the message does not have stay ignored, as the JSON mapping allows.
 * Problems name the field by its path in proto names ({@code items[1].business}). Stateless.
 */
final class StrictJson {
  /** Longest number read: an int64 or uint64 written out, with room for a fraction of zeros. */
  private static final int MAX_NUMBER_CHARS = 64;
  /** Digits of the largest integer a field holds (uint64). */
  private static final int MAX_INTEGER_DIGITS = 20;
  /** Longest piece of a client's value echoed back in a message. */
  private static final int MAX_ECHO = 40;
  private static final BigInteger INT32_MIN = BigInteger.valueOf(Integer.MIN_VALUE);
  private static final BigInteger INT32_MAX = BigInteger.valueOf(Integer.MAX_VALUE);
  private static final BigInteger INT64_MIN = BigInteger.valueOf(Long.MIN_VALUE);
  private static final BigInteger INT64_MAX = BigInteger.valueOf(Long.MAX_VALUE);
  private static final BigInteger UINT64_MAX = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

  private StrictJson() {}

  /** A request the JSON does not describe, with a client-safe reason naming the field. */
  static final class Problem extends Exception {
    static final long serialVersionUID = 1L;

    Problem(String message) {
      super(message, null, false, false);
    }
  }

  /** Parses {@code json} and checks it against {@code type}; throws with the first problem. */
  static void check(String json, Descriptor type) throws Problem {
    JsonElement root;
    try {
      root = JsonParser.parseString(json);
    } catch (JsonParseException e) {
      throw new Problem("the body is not valid JSON");
    }
    if (!root.isJsonObject()) {
      throw new Problem("the body is not a JSON object (expected: a " + type.getFullName() + ")");
    }
    message(root.getAsJsonObject(), type, "");
  }

  private static void message(JsonObject object, Descriptor type, String prefix) throws Problem {
    for (Map.Entry<String, JsonElement> member : object.entrySet()) {
      FieldDescriptor field = field(type, member.getKey());
      if (field == null || member.getValue().isJsonNull()) {
        continue; // unknown fields are ignored; null is the default value
      }
      String path = prefix + field.getName();
      if (field.isMapField()) {
        continue; // no request has one; the parser checks its shape
      }
      if (field.isRepeated()) {
        if (!member.getValue().isJsonArray()) {
          throw new Problem(path + ": not a JSON array (expected: a list)");
        }
        JsonArray values = member.getValue().getAsJsonArray();
        for (int i = 0; i < values.size(); i++) {
          value(values.get(i), field, path + "[" + i + "]");
        }
      } else {
        value(member.getValue(), field, path);
      }
    }
  }

  private static @Nullable FieldDescriptor field(Descriptor type, String name) {
    FieldDescriptor byName = type.findFieldByName(name);
    if (byName != null) {
      return byName;
    }
    for (FieldDescriptor f : type.getFields()) {
      if (f.getJsonName().equals(name)) {
        return f;
      }
    }
    return null;
  }

  private static void value(JsonElement value, FieldDescriptor field, String path) throws Problem {
    if (value.isJsonNull()) {
      throw new Problem(path + ": null (expected: " + expected(field) + ")");
    }
    switch (field.getJavaType()) {
      case MESSAGE -> {
        if (field.getMessageType().getFile().getPackage().equals("google.protobuf")) {
          return; // well-known types have JSON forms of their own; the parser checks them
        }
        if (!value.isJsonObject()) {
          throw new Problem(path + ": not a JSON object (expected: " + expected(field) + ")");
        }
        message(value.getAsJsonObject(), field.getMessageType(), path + ".");
      }
      case ENUM -> enumValue(value, field.getEnumType(), path);
      case INT -> integer(value, path, field, INT32_MIN, INT32_MAX);
      case LONG -> integer(value, path, field, INT64_MIN, INT64_MAX);
      case BOOLEAN -> {
        if (!(value.isJsonPrimitive() && (value.getAsJsonPrimitive().isBoolean()
            || value.getAsString().equals("true") || value.getAsString().equals("false")))) {
          throw new Problem(path + ": " + echo(value) + " (expected: true or false)");
        }
      }
      case STRING, BYTE_STRING -> {
        if (!(value.isJsonPrimitive() && value.getAsJsonPrimitive().isString())) {
          throw new Problem(path + ": " + echo(value) + " (expected: a JSON string)");
        }
      }
      default -> { // FLOAT, DOUBLE: no request has one; the parser checks them
      }
    }
  }

  private static void enumValue(JsonElement value, EnumDescriptor type, String path) throws Problem {
    if (value.isJsonPrimitive()) {
      JsonPrimitive p = value.getAsJsonPrimitive();
      if (p.isString() && type.findValueByName(p.getAsString()) != null) {
        return;
      }
      BigDecimal number = number(p);
      if (number != null) {
        try {
          if (type.findValueByNumber(number.intValueExact()) != null) {
            return;
          }
        } catch (ArithmeticException e) {
          // not an int32: no enum has it
        }
      }
    }
    throw new Problem(path + ": " + echo(value) + " (expected: " + KnownEnums.expected(type) + ")");
  }

  private static void integer(JsonElement value, String path, FieldDescriptor field, BigInteger min, BigInteger max)
      throws Problem {
    boolean unsigned = field.getType() == FieldDescriptor.Type.UINT32 || field.getType() == FieldDescriptor.Type.UINT64
        || field.getType() == FieldDescriptor.Type.FIXED32 || field.getType() == FieldDescriptor.Type.FIXED64;
    BigInteger low = unsigned ? BigInteger.ZERO : min;
    BigInteger high = !unsigned ? max
        : field.getJavaType() == FieldDescriptor.JavaType.INT ? BigInteger.ONE.shiftLeft(32).subtract(BigInteger.ONE)
        : UINT64_MAX;
    BigDecimal number = value.isJsonPrimitive() ? number(value.getAsJsonPrimitive()) : null;
    try {
      BigInteger n = number == null ? null : number.toBigIntegerExact();
      if (n != null && n.compareTo(low) >= 0 && n.compareTo(high) <= 0) {
        return;
      }
    } catch (ArithmeticException e) {
      // a fraction: refused below
    }
    throw new Problem(path + ": " + echo(value) + " (expected: an integer in " + low + ".." + high
        + (field.getJavaType() == FieldDescriptor.JavaType.LONG ? ", as a JSON number or string" : "") + ")");
  }

  /**
   * The number a JSON number or numeric string holds; null for anything else, and for an exponent
   * that puts it far outside every integer field: {@code 1e99999999} is nine characters, and
   * making it an integer would cost the event loop 10^99999999.
   */
  private static @Nullable BigDecimal number(JsonPrimitive p) {
    if (!p.isNumber() && !p.isString()) {
      return null;
    }
    String text = p.getAsString().trim();
    if (text.isEmpty() || text.length() > MAX_NUMBER_CHARS) {
      return null;
    }
    try {
      BigDecimal number = new BigDecimal(text);
      return number.scale() > MAX_NUMBER_CHARS || number.scale() < -MAX_INTEGER_DIGITS ? null : number;
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static String expected(FieldDescriptor field) {
    return switch (field.getJavaType()) {
      case MESSAGE -> "a " + field.getMessageType().getName() + " object";
      case ENUM -> KnownEnums.expected(field.getEnumType());
      default -> "a " + field.getType().name().toLowerCase(java.util.Locale.ROOT);
    };
  }

  /** The client's value as JSON text, cut short: enough to recognise it, never a whole body. */
  private static String echo(JsonElement value) {
    String text = value.isJsonPrimitive() ? value.toString()
        : value.isJsonArray() ? "a JSON array" : value.isJsonObject() ? "a JSON object" : value.toString();
    return text.length() <= MAX_ECHO ? text : text.substring(0, MAX_ECHO) + "...";
  }
}
