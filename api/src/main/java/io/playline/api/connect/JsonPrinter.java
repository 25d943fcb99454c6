package io.playline.api.connect;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;

/**
 * Prints a message in the proto3 JSON mapping, byte for byte what {@code
 * JsonFormat.printer().omittingInsignificantWhitespace()} prints, at a fraction of its cost: the
 * message is serialized by its generated code and its binary form is transcribed into JSON by a
 * plan per message type (each field's {@code "jsonName":} prepared once), with no reflective
 * field access, no per-field strings and no intermediate text. JsonFormat prints what this plan
 * does not cover: map fields, groups and the {@code google.protobuf} types with a JSON form of
 * their own (Timestamp, Struct, wrappers…), and any binary form not in the canonical order
 * generated code writes (fields by number, a repeated field's values together), so the output
 * is always the mapping's. Public for its microbenchmark ({@code bin/playline bench jmh ConnectJson}).
 * Thread-safe (plans are built once per type and shared).
 *
 * <p>In three parts: this entry point and its fallback, the plans ({@link JsonPlan}) and the
 * transcription of one binary form by them ({@link JsonTranscription}).
 */
public final class JsonPrinter {
  private static final JsonFormat.Printer FALLBACK = JsonFormat.printer().omittingInsignificantWhitespace();

  private JsonPrinter() {}

  /** Appends {@code message} as JSON (UTF-8) to {@code out}. */
  public static void print(Message message, ByteBuf out) throws InvalidProtocolBufferException {
    if (!transcribe(message, out)) {
      out.writeCharSequence(FALLBACK.print(message), StandardCharsets.UTF_8);
    }
  }

  /** Appends {@code message} by its type's plan; false, with nothing appended, when the plan does not cover it. */
  static boolean transcribe(Message message, ByteBuf out) {
    JsonPlan plan = JsonPlan.of(message.getDescriptorForType());
    if (plan == JsonPlan.UNSUPPORTED) {
      return false;
    }
    byte[] wire = message.toByteArray();
    JsonTranscription json = new JsonTranscription(wire);
    try {
      json.message(plan, 0, wire.length, 0);
    } catch (JsonTranscription.NotCanonical | IndexOutOfBoundsException e) {
      return false;
    }
    json.copyTo(out);
    return true;
  }
}
