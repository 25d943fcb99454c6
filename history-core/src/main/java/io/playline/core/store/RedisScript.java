package io.playline.core.store;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A Lua script shipped as a class-path resource, with its SHA-1 for EVALSHA. Callers send
 * EVALSHA and, on a NOSCRIPT reply (a restarted or new Redis), load the body and retry. Immutable.
 */
public final class RedisScript {
  public static final RedisScript WRITE_HISTORY = load("write_history.lua");
  public static final RedisScript FIRST_TODAY = load("first_today.lua");
  public static final RedisScript MARK_RECOVERY = load("mark_recovery.lua");
  public static final RedisScript RECOVERY_DUE = load("recovery_due.lua");
  public static final RedisScript CLAIM_FIRST_TODAY = load("claim_first_today.lua");
  public static final RedisScript CLEAR_RECOVERY = load("clear_recovery.lua");
  public static final RedisScript READ_TIMELINE = load("read_timeline.lua");
  public static final RedisScript WARM_HISTORY = load("warm_history.lua");
  public static final RedisScript DELETE_HISTORY = load("delete_history.lua");
  public static final RedisScript CLEAR_HISTORY = load("clear_history.lua");

  private final String name;
  private final String body;
  private final String sha;

  private RedisScript(String name, String body) {
    this.name = name;
    this.body = body;
    try {
      this.sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(body.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-1 unavailable", e);
    }
  }

  private static RedisScript load(String resource) {
    return load(RedisScript.class, resource);
  }

  /**
   * The script in {@code resource}, relative to {@code owner}'s package: for scripts of other
   * modules (e.g. the job's recovery leases), sent the same way through {@link Scripts#eval}.
   */
  public static RedisScript load(Class<?> owner, String resource) {
    try (InputStream in = owner.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("missing script resource " + resource);
      }
      return new RedisScript(resource, new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new IllegalStateException("cannot read script " + resource, e);
    }
  }

  public String name() {
    return name;
  }

  public String body() {
    return body;
  }

  public String sha() {
    return sha;
  }

  /** True when a Redis error means the script is not loaded on that server. */
  public static boolean isNoScript(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause()) {
      String m = t.getMessage();
      if (m != null && m.startsWith("NOSCRIPT")) {
        return true;
      }
    }
    return false;
  }
}
