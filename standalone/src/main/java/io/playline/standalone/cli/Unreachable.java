package io.playline.standalone.cli;

import io.playline.node.errors.Errors;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * What the operator commands say when the node they call does not answer: the cause in words
 * ("connection refused", "unknown host"), the address, and the next step — never a bare
 * {@code null} or {@code io exception}. Stateless.
 */
public final class Unreachable {
  private Unreachable() {}

  /**
   * The network cause of {@code failure} in a few words, or {@code null} when it is not a
   * connection failure (then the caller reports it as it is).
   */
  public static @Nullable String cause(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof ConnectException) {
        return t instanceof HttpConnectTimeoutException ? "connect timed out" : "connection refused";
      }
      if (t instanceof UnknownHostException) {
        return "unknown host " + t.getMessage();
      }
      if (t instanceof NoRouteToHostException) {
        return "no route to host";
      }
      if (t instanceof SocketTimeoutException || t instanceof HttpTimeoutException) {
        return "timed out";
      }
      // Netty's connect failures (AnnotatedConnectException) extend ConnectException; its native
      // transport's "Connection refused" is an Errors.NativeIoException, an IOException only.
      String message = t.getMessage();
      if (message != null && message.contains("Connection refused")) {
        return "connection refused";
      }
    }
    return null;
  }

  /**
   * "cannot reach the WHAT at ADDRESS (CAUSE): HINT": what a command prints when {@code failure}
   * is a connection failure; {@code null} otherwise.
   */
  public static @Nullable String describe(Throwable failure, String what, String address, String hint) {
    String cause = cause(failure);
    return cause == null ? null : "cannot reach the " + what + " at " + address + " (" + cause + "): " + hint;
  }
}
