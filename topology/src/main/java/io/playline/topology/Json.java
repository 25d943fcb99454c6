package io.playline.topology;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;

/** Writes a JSON file atomically (temp file, then move), so a reader never sees half of it. */
final class Json {
  private Json() {}

  static void write(Path target, Map<String, Object> root) throws IOException {
    Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
    new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(tmp.toFile(), root);
    Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }
}
