import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * {@code java tools/CheckClassVersions.java MAX_MAJOR JAR_OR_CLASSPATH_FILE...}: exits 1 when a class
 * file in one of the jars has a class-file major version above MAX_MAJOR (52 is Java 8: what a
 * Java 8 JVM and Android's D8 load) — the number {@code javap -v} prints as "major version". An
 * argument ending in {@code .txt} is a classpath file (dependency:build-classpath); every jar (or
 * classes directory, as a reactor build may list) on it is read. Skipped, because neither a Java 8 JVM nor Android's tools load them: module-info.class
 * and the Java 9+ variants of a multi-release jar ({@code META-INF/versions/N/}).
 *
 * <p>Prints one line per jar: its class count, its highest major and a class that has it (so a
 * caller can compare with javap). Run by client-okhttp's build on its runtime classpath and by
 * .ci/smoke-dist on the jars of the archive's maven/ repository.
 */
public final class CheckClassVersions {
  public static void main(String[] args) throws IOException {
    if (args.length < 2) {
      System.err.println("usage: CheckClassVersions MAX_MAJOR JAR_OR_CLASSPATH_FILE...");
      System.exit(2);
    }
    int max = Integer.parseInt(args[0]);
    List<Path> jars = new ArrayList<>();
    for (int i = 1; i < args.length; i++) {
      if (args[i].endsWith(".txt")) {
        for (String e : Files.readString(Path.of(args[i])).trim().split(":")) {
          if (!e.isEmpty()) {
            jars.add(Path.of(e));
          }
        }
      } else {
        jars.add(Path.of(args[i]));
      }
    }
    int total = 0;
    List<String> bad = new ArrayList<>();
    for (Path jar : jars) {
      int count = 0;
      int highest = 0;
      String highestClass = "-";
      List<String> names = new ArrayList<>();
      List<Integer> majors = new ArrayList<>();
      if (Files.isDirectory(jar)) {
        try (Stream<Path> files = Files.walk(jar)) {
          for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
            String name = jar.relativize(f).toString().replace('\\', '/');
            if (loaded(name)) {
              names.add(name);
              majors.add(major(Files.newInputStream(f), f.toString()));
            }
          }
        }
      } else {
        try (ZipFile zip = new ZipFile(jar.toFile())) {
          for (Enumeration<? extends ZipEntry> en = zip.entries(); en.hasMoreElements(); ) {
            ZipEntry e = en.nextElement();
            if (loaded(e.getName())) {
              names.add(e.getName());
              majors.add(major(zip.getInputStream(e), jar + "!/" + e.getName()));
            }
          }
        }
      }
      for (int i = 0; i < names.size(); i++) {
        String name = names.get(i);
        int major = majors.get(i);
        count++;
        if (major > highest) {
          highest = major;
          highestClass = name.substring(0, name.length() - ".class".length()).replace('/', '.');
        }
        if (major > max) {
          bad.add(jar.getFileName() + "!/" + name + ": major " + major);
        }
      }
      total += count;
      System.out.println("check-class-versions: " + jar.getFileName() + " " + count + " classes, highest major "
          + highest + " (" + highestClass + ")");
    }
    if (!bad.isEmpty()) {
      System.err.println("check-class-versions: " + bad.size() + " class files newer than major " + max
          + " (a Java 8 JVM and Android's D8 reject them), e.g.:");
      bad.stream().limit(10).forEach(b -> System.err.println("  " + b));
      System.exit(1);
    }
    System.out.println("check-class-versions: " + jars.size() + " jars, " + total + " classes, every one major <= " + max);
  }

  /** A class file a Java 8 JVM or Android's D8 would load: not module-info, not a Java 9+ variant. */
  private static boolean loaded(String name) {
    return name.endsWith(".class") && !name.startsWith("META-INF/versions/")
        && !name.equals("module-info.class") && !name.endsWith("/module-info.class");
  }

  /** The class file's major version: u4 magic, u2 minor, u2 major. */
  private static int major(InputStream in, String what) throws IOException {
    try (DataInputStream data = new DataInputStream(in)) {
      if (data.readInt() != 0xCAFEBABE) {
        throw new IOException(what + " is not a class file");
      }
      data.readUnsignedShort();
      return data.readUnsignedShort();
    }
  }
}
