package io.playline.standalone.cli;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageOrBuilder;
import com.google.protobuf.util.JsonFormat;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.playline.proto.v1.HistoryGrpc;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code playline history …}: operator access to any user's history through the internal API.
 * Exit codes: 0 ok, 1 the server failed or could not be reached, 2 bad arguments (also when the
 * server answers INVALID_ARGUMENT).
 */
@Command(name = "history", mixinStandardHelpOptions = true,
    description = "Inspect and control a user's history through the internal API (port 9091).",
    subcommands = {HistoryListCommand.class, HistoryProgressCommand.class, HistoryDeleteCommand.class,
        HistoryClearCommand.class, HistoryPauseCommand.class})
public final class HistoryCommand {
  public static final int EXIT_FAILED = 1;
  public static final int EXIT_USAGE = 2;

  /** What every subcommand shares: the uid, the API options, and a call wrapper. */
  abstract static class Base implements Callable<Integer> {
    @Option(names = "--uid", required = true, description = "User id (> 0).")
    long uid;

    @Mixin ApiOptions api = new ApiOptions();

    @Spec CommandSpec spec;

    /** The subcommand's work with a stub whose deadline is set. */
    abstract void run(HistoryGrpc.HistoryBlockingStub stub, PrintWriter out) throws Exception;

    @Override
    public final Integer call() throws Exception {
      if (uid <= 0) {
        throw new IllegalArgumentException("--uid: " + uid + " (expected: > 0)");
      }
      ManagedChannel channel = api.channel(spec.commandLine().getErr());
      String address = api.address(spec.commandLine().getErr());
      try {
        run(HistoryGrpc.newBlockingStub(channel).withDeadlineAfter(api.deadline().toMillis(), TimeUnit.MILLISECONDS),
            spec.commandLine().getOut());
        spec.commandLine().getOut().flush();
        return 0;
      } catch (StatusRuntimeException e) {
        String unreachable = e.getStatus().getCode() == io.grpc.Status.Code.UNAVAILABLE
            ? Unreachable.describe(e, "internal API", address, "start a node with `bin/playline standalone` (or the api "
                + "role), or point at one with --api HOST:PORT or PLAYLINE_API_ADDRESS")
            : null;
        String code = e.getStatus().getCode().name();
        String description = e.getStatus().getDescription();
        String text = unreachable != null ? unreachable : description == null ? code
            : description.startsWith(code + ": ") ? description + " (api " + address + ")"
            : code + ": " + description + " (api " + address + ")";
        spec.commandLine().getErr().println("playline: " + text);
        return e.getStatus().getCode() == io.grpc.Status.Code.INVALID_ARGUMENT ? EXIT_USAGE : EXIT_FAILED;
      } finally {
        channel.shutdownNow().awaitTermination(2, TimeUnit.SECONDS);
      }
    }

    void printJson(PrintWriter out, MessageOrBuilder message) throws InvalidProtocolBufferException {
      out.println(JsonFormat.printer().print(message));
    }
  }
}
