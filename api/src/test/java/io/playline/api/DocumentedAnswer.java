package io.playline.api;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.gson.JsonPrimitive;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * An answer as a page documents it under an example ({@code # → [STATUS] ANSWER}): an HTTP status
 * when one is shown, then either a JSON message or a comma-separated list of names the output
 * shows. {@link #mismatches} compares a real answer with it by shape:
 * <ul>
 *   <li>every key of the answer is documented, with the same JSON type, at every depth (array
 *       elements against the documented ones);
 *   <li>every documented key is in the answer, except a boolean or a number (also a number as a
 *       string, the JSON form of 64-bit ids): the proto3 JSON mapping leaves those out at 0 and
 *       false;
 *   <li>a documented string with a digit in it is an example value (a date, a time, an id), so
 *       only its type counts; one with {@code ...} in it must match up to there; any other string
 *       (an enum name, a code, a device id) must be the same.
 * </ul>
 */
record DocumentedAnswer(@Nullable Integer status, @Nullable JsonElement json, List<String> names) {
  private static final Pattern STATUS = Pattern.compile("^(\\d{3}) (.*)$");
  private static final Pattern NUMBER = Pattern.compile("-?\\d+");
  private static final String ELLIPSIS = "...";

  static DocumentedAnswer parse(String text) {
    Integer status = null;
    Matcher m = STATUS.matcher(text);
    if (m.matches()) {
      status = Integer.valueOf(m.group(1));
      text = m.group(2);
    }
    if (text.startsWith("{")) {
      return new DocumentedAnswer(status, JsonParser.parseString(text), List.of());
    }
    return new DocumentedAnswer(status, null, Arrays.stream(text.split(",")).map(String::trim).toList());
  }

  /** How {@code output} differs from this answer (empty: it matches). */
  List<String> mismatches(String output) {
    List<String> out = new ArrayList<>();
    if (json == null) {
      names.stream().filter(n -> !output.contains(n)).forEach(n -> out.add("does not show " + n));
      return out;
    }
    JsonElement actual;
    try {
      actual = JsonParser.parseString(output);
    } catch (RuntimeException e) {
      return List.of("not JSON: " + output);
    }
    compare(json, actual, "$", out);
    return out;
  }

  private static void compare(JsonElement doc, JsonElement actual, String path, List<String> out) {
    if (doc.isJsonObject()) {
      if (!actual.isJsonObject()) {
        out.add(path + ": " + actual + " (documented: an object)");
        return;
      }
      JsonObject documented = doc.getAsJsonObject();
      JsonObject answered = actual.getAsJsonObject();
      for (String key : answered.keySet()) {
        if (!documented.has(key)) {
          out.add(path + "." + key + ": in the answer, not in the documented one");
        }
      }
      for (Map.Entry<String, JsonElement> e : documented.entrySet()) {
        if (answered.has(e.getKey())) {
          compare(e.getValue(), answered.get(e.getKey()), path + "." + e.getKey(), out);
        } else if (!omittable(e.getValue())) {
          out.add(path + "." + e.getKey() + ": documented, not in the answer");
        }
      }
    } else if (doc.isJsonArray()) {
      if (!actual.isJsonArray()) {
        out.add(path + ": " + actual + " (documented: an array)");
        return;
      }
      int documented = doc.getAsJsonArray().size();
      for (int i = 0; i < actual.getAsJsonArray().size() && documented > 0; i++) {
        compare(doc.getAsJsonArray().get(Math.min(i, documented - 1)), actual.getAsJsonArray().get(i),
            path + "[" + i + "]", out);
      }
    } else {
      comparePrimitive(doc.getAsJsonPrimitive(), actual, path, out);
    }
  }

  private static void comparePrimitive(JsonPrimitive doc, JsonElement actual, String path, List<String> out) {
    if (!actual.isJsonPrimitive()) {
      out.add(path + ": " + actual + " (documented: " + doc + ")");
      return;
    }
    JsonPrimitive answered = actual.getAsJsonPrimitive();
    boolean sameType = doc.isBoolean() ? answered.isBoolean() : doc.isNumber() ? answered.isNumber() : answered.isString();
    if (!sameType) {
      out.add(path + ": " + actual + " (documented: " + doc + ")");
    } else if (doc.isString()) {
      String value = doc.getAsString();
      int ellipsis = value.indexOf(ELLIPSIS);
      if (ellipsis >= 0 ? !answered.getAsString().startsWith(value.substring(0, ellipsis))
          : !value.matches(".*\\d.*") && !value.equals(answered.getAsString())) {
        out.add(path + ": " + actual + " (documented: " + doc + ")");
      }
    }
  }

  /** A documented value the answer may leave out: one the proto3 JSON mapping omits at its default. */
  private static boolean omittable(JsonElement doc) {
    if (!doc.isJsonPrimitive()) {
      return false;
    }
    JsonPrimitive p = doc.getAsJsonPrimitive();
    return p.isBoolean() || p.isNumber() || NUMBER.matcher(p.getAsString()).matches();
  }
}
