package io.playline.api.connect;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * How {@link JsonPrinter} transcribes one message type: its fields by number, each with its
 * {@code "jsonName":} prepared once and the kind of its binary values. Built once per type and
 * shared ({@link #of}); {@link #UNSUPPORTED} for a type whose JSON form the plan does not cover
 * (map fields, groups, the {@code google.protobuf} types with a JSON form of their own), which
 * JsonFormat prints instead. Immutable; thread-safe.
 *
 * @param byNumber a type's fields by number (null: not a field of the type, skipped as JsonFormat
 *     skips unknown fields)
 */
record JsonPlan(@Nullable Field[] byNumber) {
  static final int WIRE_VARINT = 0;
  static final int WIRE_FIXED64 = 1;
  static final int WIRE_LENGTH = 2;
  static final int WIRE_FIXED32 = 5;
  /** The plan of a type JsonFormat prints. */
  static final JsonPlan UNSUPPORTED = new JsonPlan(new Field[0]);
  /** Field numbers past this are not planned (the type goes to the fallback): the plan is an array. */
  private static final int MAX_PLANNED_NUMBER = 1024;
  /** Plans by message type. Types are the schema's: finite. */
  private static final ConcurrentHashMap<Descriptor, JsonPlan> PLANS = new ConcurrentHashMap<>();

  /** One field of a planned type: how its binary values read and print. */
  record Field(FieldDescriptor.Type type, boolean repeated, byte[] name, @Nullable EnumDescriptor enumType,
      @Nullable Descriptor messageType) {}

  /** {@code type}'s plan, or {@link #UNSUPPORTED}. */
  static JsonPlan of(Descriptor type) {
    JsonPlan plan = PLANS.get(type);
    if (plan == null) {
      plan = supported(type, new HashSet<>()) ? build(type) : UNSUPPORTED;
      PLANS.putIfAbsent(type, plan);
    }
    return plan;
  }

  /** Whether every type {@code type} reaches prints by the plan alone. */
  private static boolean supported(Descriptor type, Set<Descriptor> seen) {
    if (!seen.add(type)) {
      return true;
    }
    if (type.getFullName().startsWith("google.protobuf.")) {
      return false; // Timestamp, Duration, Any, Struct, wrappers… have a JSON form of their own
    }
    for (FieldDescriptor f : type.getFields()) {
      if (f.isMapField() || f.getType() == FieldDescriptor.Type.GROUP || f.getNumber() > MAX_PLANNED_NUMBER
          || f.getType() == FieldDescriptor.Type.ENUM && f.getEnumType().getFullName().equals("google.protobuf.NullValue")
          || f.getType() == FieldDescriptor.Type.MESSAGE && !supported(f.getMessageType(), seen)) {
        return false;
      }
    }
    return true;
  }

  private static JsonPlan build(Descriptor type) {
    int max = 0;
    for (FieldDescriptor f : type.getFields()) {
      max = Math.max(max, f.getNumber());
    }
    Field[] byNumber = new Field[max + 1];
    for (FieldDescriptor f : type.getFields()) {
      byNumber[f.getNumber()] = new Field(f.getType(), f.isRepeated(), ascii("\"" + f.getJsonName() + "\":"),
          f.getType() == FieldDescriptor.Type.ENUM ? f.getEnumType() : null,
          f.getType() == FieldDescriptor.Type.MESSAGE ? f.getMessageType() : null);
    }
    return new JsonPlan(byNumber);
  }

  /** Whether a repeated field of {@code type} is written packed (one length-delimited run) by generated code. */
  static boolean packed(FieldDescriptor.Type type) {
    return wireTypeOf(type) != WIRE_LENGTH;
  }

  /** The wire type generated code writes a {@code type} value with. */
  static int wireTypeOf(FieldDescriptor.Type type) {
    return switch (type) {
      case DOUBLE, FIXED64, SFIXED64 -> WIRE_FIXED64;
      case FLOAT, FIXED32, SFIXED32 -> WIRE_FIXED32;
      case STRING, BYTES, MESSAGE, GROUP -> WIRE_LENGTH;
      default -> WIRE_VARINT;
    };
  }

  static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
