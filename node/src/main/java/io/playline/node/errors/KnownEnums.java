package io.playline.node.errors;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumDescriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.MessageOrBuilder;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * Finds an enum number a request carries that its enum does not define, in any field, repeated or
 * nested. proto3 keeps such a number (the Java API reads it as {@code UNRECOGNIZED}) rather than
 * refusing it, and a value a server does not know must never be taken for another or for none:
 * every transport refuses it as INVALID_ARGUMENT with the field, the number and the names the API
 * defines. Only the fields that can hold an enum are visited (found once per message type).
 * Thread-safe.
 */
public final class KnownEnums {
  /** Per message type, its fields that are enums or messages that (transitively) hold one. */
  private static final ConcurrentHashMap<Descriptor, List<FieldDescriptor>> BEARING = new ConcurrentHashMap<>();

  private KnownEnums() {}

  /** The first unknown enum number in {@code message} as a client-safe problem naming the field, or null. */
  public static @Nullable String problem(MessageOrBuilder message) {
    return problemIn(message);
  }

  /** What a field of {@code type} takes, for messages: "a Business the API defines: VIDEO, ARTICLE, ...". */
  public static String expected(EnumDescriptor type) {
    return "a " + type.getName() + " the API defines: " + type.getValues().stream().filter(v -> v.getNumber() != 0)
        .map(EnumValueDescriptor::getName).collect(Collectors.joining(", "));
  }

  /**
   * The first unknown enum number below {@code message}, its field path relative to it. The path is
   * put together only for a problem, on the way back up: a request without one (every request of
   * an honest client) builds no string.
   */
  private static @Nullable String problemIn(MessageOrBuilder message) {
    for (FieldDescriptor field : bearing(message.getDescriptorForType())) {
      if (field.isRepeated()) {
        int n = message.getRepeatedFieldCount(field);
        for (int i = 0; i < n; i++) {
          String p = value(field, message.getRepeatedField(field, i));
          if (p != null) {
            return field.getName() + "[" + i + "]" + p;
          }
        }
      } else if (field.getJavaType() == FieldDescriptor.JavaType.ENUM || message.hasField(field)) {
        String p = value(field, message.getField(field));
        if (p != null) {
          return field.getName() + p;
        }
      }
    }
    return null;
  }

  /** The rest of the problem's text after the field's name: {@code .nested.path: n (...)} or {@code : n (...)}. */
  private static @Nullable String value(FieldDescriptor field, Object value) {
    if (field.getJavaType() == FieldDescriptor.JavaType.MESSAGE) {
      String p = problemIn((MessageOrBuilder) value);
      return p == null ? null : "." + p;
    }
    int number = ((EnumValueDescriptor) value).getNumber();
    EnumDescriptor type = field.getEnumType();
    return type.findValueByNumber(number) != null ? null : ": " + number + " (expected: " + expected(type) + ")";
  }

  private static List<FieldDescriptor> bearing(Descriptor type) {
    List<FieldDescriptor> known = BEARING.get(type);
    if (known != null) {
      return known;
    }
    List<FieldDescriptor> fields = new ArrayList<>();
    for (FieldDescriptor f : type.getFields()) {
      if (f.getJavaType() == FieldDescriptor.JavaType.ENUM
          || f.getJavaType() == FieldDescriptor.JavaType.MESSAGE && holdsEnum(f.getMessageType(), new HashSet<>())) {
        fields.add(f);
      }
    }
    List<FieldDescriptor> computed = List.copyOf(fields);
    BEARING.putIfAbsent(type, computed);
    return computed;
  }

  private static boolean holdsEnum(Descriptor type, Set<Descriptor> seen) {
    if (!seen.add(type)) {
      return false; // a recursive type: its enums, if any, are found on the first visit
    }
    for (FieldDescriptor f : type.getFields()) {
      if (f.getJavaType() == FieldDescriptor.JavaType.ENUM
          || f.getJavaType() == FieldDescriptor.JavaType.MESSAGE && holdsEnum(f.getMessageType(), seen)) {
        return true;
      }
    }
    return false;
  }
}
