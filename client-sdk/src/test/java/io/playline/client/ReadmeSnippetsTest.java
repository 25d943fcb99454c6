package io.playline.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every {@code ```java} snippet of the READMEs compiles against the SDK as built: the snippets of a
 * README's "Android" section at {@code --release 8} (what an Android or Java 8 app compiles with),
 * the others at 17. A snippet that declares a class is a compilation unit; any other is the body of
 * a method of a class extending {@link #CONTEXT}, which declares the app's own names a snippet uses
 * ({@code login}, {@code installationId}…). The Android types the snippets name are declared as in
 * Android's API ({@link #ANDROID}): no Android SDK on the build machines, and what is checked is the
 * calls into Playline's SDK.
 */
class ReadmeSnippetsTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final List<Path> READMES =
      List.of(ROOT.resolve("README.md"), ROOT.resolve("client-sdk/README.md"), ROOT.resolve("dist/src/README.md"));
  private static final Pattern BLOCK = Pattern.compile("^```java\\n(.*?)^```$", Pattern.MULTILINE | Pattern.DOTALL);
  private static final Pattern TYPE = Pattern.compile("^(?:public |final |abstract )*(?:class|interface|enum) (\\w+)", Pattern.MULTILINE);

  private static final String CONTEXT = """
      import android.content.Context;
      import io.playline.client.PlaylineListener;
      import io.playline.proto.lite.v1.HistoryRecord;
      import io.playline.proto.lite.v1.ItemKey;
      import java.nio.file.Path;
      import java.util.concurrent.CompletionStage;

      abstract class SnippetContext {
        interface Login { CompletionStage<String> freshToken(); }
        interface App { okhttp3.OkHttpClient okHttpClient(); }
        Login login;
        App app;
        Context context;
        PlaylineListener listener;
        String installationId;
        Path dataDir;
        long videoId;
        long positionMs;
        long durationMs;
        ItemKey item;
        void showDailyReward(String day) {}
        void offerToContinue(HistoryRecord record) {}
      }
      """;

  private static final List<String> ANDROID = List.of("""
      package android.content;
      public abstract class Context {
        public static final int MODE_PRIVATE = 0;
        public abstract SharedPreferences getSharedPreferences(String name, int mode);
      }
      """, """
      package android.content;
      public interface SharedPreferences {
        String getString(String key, String defValue);
        Editor edit();
        interface Editor {
          Editor putString(String key, String value);
          void apply();
        }
      }
      """, """
      package androidx.core.content;
      public final class ContextCompat {
        private ContextCompat() {}
        public static java.util.concurrent.Executor getMainExecutor(android.content.Context context) {
          throw new UnsupportedOperationException();
        }
      }
      """);

  record Snippet(Path readme, int line, boolean android, String code) {
    String where() {
      return ROOT.relativize(readme) + ":" + line;
    }
  }

  @Test
  void everyJavaSnippetInTheReadmesCompiles(@TempDir Path out) throws IOException {
    List<Snippet> snippets = new ArrayList<>();
    for (Path readme : READMES) {
      snippets.addAll(snippets(readme));
    }
    List<Snippet> android = snippets.stream().filter(Snippet::android).toList();
    List<Snippet> jvm = snippets.stream().filter(s -> !s.android()).toList();
    assertThat(android).as("Android snippets").hasSizeGreaterThanOrEqualTo(2);
    assertThat(jvm).as("other snippets").isNotEmpty();

    assertThat(compile(android, "8", out.resolve("android"))).as("errors compiling the Android snippets at --release 8").isEmpty();
    assertThat(compile(jvm, "17", out.resolve("jvm"))).as("errors compiling the other snippets at --release 17").isEmpty();
  }

  /** The README's java blocks; a block is Android's when the last "## " heading above it says Android. */
  static List<Snippet> snippets(Path readme) throws IOException {
    String text = Files.readString(readme);
    List<Snippet> found = new ArrayList<>();
    Matcher m = BLOCK.matcher(text);
    while (m.find()) {
      String before = text.substring(0, m.start());
      int heading = before.lastIndexOf("\n## ");
      String section = heading < 0 ? "" : before.substring(heading + 4, before.indexOf('\n', heading + 1));
      int line = (int) before.chars().filter(c -> c == '\n').count() + 2;
      found.add(new Snippet(readme, line, section.toLowerCase(Locale.ROOT).contains("android"), m.group(1)));
    }
    return found;
  }

  /** The compiler's errors, each with the README line it came from. */
  private static List<String> compile(List<Snippet> snippets, String release, Path out) throws IOException {
    Files.createDirectories(out);
    List<JavaFileObject> units = new ArrayList<>();
    units.add(source("SnippetContext", CONTEXT));
    for (String android : ANDROID) {
      Matcher type = TYPE.matcher(android);
      assertThat(type.find()).isTrue();
      units.add(source(android.lines().findFirst().orElseThrow().replace("package ", "").replace(";", "").replace('.', '/')
          + "/" + type.group(1), android));
    }
    List<Snippet> byUnit = new ArrayList<>();
    for (int i = 0; i < snippets.size(); i++) {
      Snippet s = snippets.get(i);
      List<String> imports = s.code().lines().filter(l -> l.startsWith("import ")).toList();
      String body = s.code().lines().filter(l -> !l.startsWith("import ")).collect(Collectors.joining("\n"));
      Matcher type = TYPE.matcher(body);
      String name;
      String unit;
      if (type.find()) {
        name = type.group(1);
        unit = String.join("\n", imports) + "\n" + body + "\n";
      } else {
        name = "Snippet" + i;
        unit = String.join("\n", imports) + "\nclass " + name + " extends SnippetContext {\n  void run() throws Exception {\n"
            + body + "\n  }\n}\n";
      }
      units.add(source(name, unit));
      byUnit.add(s);
    }
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<String> options = List.of("--release", release, "-classpath", classpath, "-d", out.toString(), "-proc:none");
    try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, null, StandardCharsets.UTF_8)) {
      javac.getTask(null, files, diagnostics, options, null, units).call();
    }
    List<String> errors = new ArrayList<>();
    for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
      if (d.getKind() == Diagnostic.Kind.ERROR) {
        String unit = d.getSource() == null ? "?" : d.getSource().getName();
        String from = byUnit.stream().filter(s -> unit.contains("/" + unitName(s, byUnit) + ".java")).map(Snippet::where)
            .findFirst().orElse(unit);
        errors.add(from + " (unit line " + d.getLineNumber() + "): " + d.getMessage(Locale.ROOT));
      }
    }
    return errors;
  }

  private static String unitName(Snippet s, List<Snippet> all) {
    Matcher type = TYPE.matcher(s.code());
    return type.find() ? type.group(1) : "Snippet" + all.indexOf(s);
  }

  private static JavaFileObject source(String name, String code) {
    return new SimpleJavaFileObject(URI.create("string:///" + name + ".java"), JavaFileObject.Kind.SOURCE) {
      @Override
      public CharSequence getCharContent(boolean ignoreEncodingErrors) {
        return code;
      }
    };
  }
}
