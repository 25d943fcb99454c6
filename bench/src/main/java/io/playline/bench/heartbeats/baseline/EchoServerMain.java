package io.playline.bench.heartbeats.baseline;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * Entry point of the echo baseline's child process: binds {@code 127.0.0.1:<args[0]>} (0 = any
 * port) with {@code args[1]} I/O threads, prints {@code @@PORT <port>} and runs until its stdin
 * closes, so it never outlives the benchmark. Main thread only.
 */
public final class EchoServerMain {
  private EchoServerMain() {}

  public static void main(String[] args) throws InterruptedException, IOException {
    int port = args.length > 0 ? Integer.parseInt(args[0]) : 0;
    int threads = args.length > 1 ? Integer.parseInt(args[1]) : 0;
    PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true,
        StandardCharsets.UTF_8);
    System.setOut(System.err);
    try (EchoServer server = EchoServer.start(new InetSocketAddress("127.0.0.1", port), threads)) {
      out.println("@@PORT " + server.port());
      InputStream in = System.in;
      while (in.read() >= 0) {
        // Wait for the parent to close the pipe (or die).
      }
    }
    System.exit(0);
  }
}
