package io.playline.standalone.cli;

import io.playline.proto.v1.GetPausedRequest;
import io.playline.proto.v1.HistoryGrpc;
import io.playline.proto.v1.SetPausedRequest;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code history pause}: shows, pauses or resumes recording of a user's history. */
@Command(name = "pause", mixinStandardHelpOptions = true,
    description = "Show whether recording is paused for a user; --on pauses it, --off resumes it.")
final class HistoryPauseCommand extends HistoryCommand.Base {
  @Option(names = "--on", description = "Pause recording.")
  boolean on;

  @Option(names = "--off", description = "Resume recording.")
  boolean off;

  @Override
  void run(HistoryGrpc.HistoryBlockingStub stub, PrintWriter out) {
    if (on && off) {
      throw new IllegalArgumentException("--on and --off: pick one");
    }
    boolean paused = on || off
        ? stub.setPaused(SetPausedRequest.newBuilder().setUid(uid).setPaused(on).build()).getPaused()
        : stub.getPaused(GetPausedRequest.newBuilder().setUid(uid).build()).getPaused();
    out.println(api.json ? "{\"uid\": " + uid + ", \"paused\": " + paused + "}"
        : "uid " + uid + ": recording " + (paused ? "paused" : "on"));
  }
}
