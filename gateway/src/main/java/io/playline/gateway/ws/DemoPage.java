package io.playline.gateway.ws;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.function.LongFunction;
import org.jspecify.annotations.Nullable;

/**
 * The demo web player ({@code demo.enabled}): a page on the WebSocket port, under {@link #PATH},
 * that plays a fake video through the JavaScript SDK against this node's own {@code /v1/stream}.
 * Its files are classpath resources under {@code io/playline/demo/} (the {@code demo} module builds
 * the script from {@code demo/src/main/web} and {@code client-js} with esbuild); read once, here.
 *
 * <p>With {@code devTokens} (standalone, which signs player tokens with the public development
 * secret anyway) the page fetches a token for any uid from {@code /demo/token?uid=N}; without,
 * that path answers 404 and the page asks for a token.
 */
public final class DemoPage {
  /** Where the page lives on the WebSocket port. */
  public static final String PATH = "/demo";
  private static final String RESOURCES = "/io/playline/demo/";
  /** Served when the script was not built (no Node on the build machine): the page says so. */
  private static final String MISSING_SCRIPT = "document.getElementById('state').textContent = "
      + "'The demo script was not built: install Node >= 18 with npm and rebuild (./mvnw -pl demo -am package).';\n";

  /** A file the page is made of. */
  record Asset(String contentType, byte[] body) {}

  private final Map<String, Asset> assets;
  private final boolean scriptBuilt;
  private final @Nullable LongFunction<String> devTokens;

  private DemoPage(Map<String, Asset> assets, boolean scriptBuilt, @Nullable LongFunction<String> devTokens) {
    this.assets = assets;
    this.scriptBuilt = scriptBuilt;
    this.devTokens = devTokens;
  }

  /**
   * The page, with a token for any uid from {@code devTokens} (null: the user pastes a token).
   *
   * @throws IllegalStateException when the page itself is not on the classpath
   */
  public static DemoPage load(@Nullable LongFunction<String> devTokens) {
    byte[] html = read("index.html");
    byte[] css = read("demo.css");
    if (html == null || css == null) {
      throw new IllegalStateException("demo.enabled, but the demo page is not on the classpath ("
          + RESOURCES + "index.html; module demo)");
    }
    byte[] script = read("demo.js");
    return new DemoPage(Map.of(
        "/", new Asset("text/html; charset=utf-8", html),
        "/demo.css", new Asset("text/css; charset=utf-8", css),
        "/demo.js", new Asset("text/javascript; charset=utf-8",
            script != null ? script : MISSING_SCRIPT.getBytes(java.nio.charset.StandardCharsets.UTF_8))),
        script != null, devTokens);
  }

  /** Whether the built script is there (false: the page only says how to build it). */
  public boolean scriptBuilt() {
    return scriptBuilt;
  }

  /** The file at {@code path} below {@link #PATH} ("/" is the page), or null. */
  @Nullable Asset asset(String path) {
    return assets.get(path);
  }

  /** Whether {@code /demo/token} hands out player tokens here (standalone with the development secret). */
  public boolean handsOutTokens() {
    return devTokens != null;
  }

  /** A player token for {@code uid}, or null when this node hands out none. */
  @Nullable String devToken(long uid) {
    return devTokens == null ? null : devTokens.apply(uid);
  }

  private static byte @Nullable [] read(String name) {
    try (InputStream in = DemoPage.class.getResourceAsStream(RESOURCES + name)) {
      return in == null ? null : in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException("reading the demo's " + name, e);
    }
  }
}
