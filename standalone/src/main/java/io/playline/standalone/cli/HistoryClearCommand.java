package io.playline.standalone.cli;

import io.playline.proto.v1.ClearHistoryRequest;
import io.playline.proto.v1.HistoryGrpc;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code history clear}: clears some businesses ({@code --business}) or, only when asked with
 * {@code --all}, every business of a user's history. One of the two is required, so a command
 * that names nothing clears nothing.
 */
@Command(name = "clear", mixinStandardHelpOptions = true,
    description = "Clear some businesses (--business) or all (--all) of a user's history.")
final class HistoryClearCommand extends HistoryCommand.Base {
  /** Exactly one scope. */
  static final class Scope {
    @Option(names = "--business", split = ",", paramLabel = "BUSINESS", required = true,
        description = "These businesses (e.g. VIDEO,LIVE).")
    List<String> businesses = new ArrayList<>();

    @Option(names = "--all", required = true, description = "Every business: the whole history.")
    boolean all;
  }

  @ArgGroup(exclusive = true, multiplicity = "1")
  Scope scope = new Scope();

  @Override
  void run(HistoryGrpc.HistoryBlockingStub stub, PrintWriter out) throws Exception {
    ClearHistoryRequest.Builder request = ClearHistoryRequest.newBuilder().setUid(uid).setAllBusinesses(scope.all);
    scope.businesses.forEach(b -> request.addBusinesses(Items.business(b)));
    stub.clearHistory(request.build());
    String what = scope.all ? "everything" : String.join(",", scope.businesses);
    out.println(api.json ? "{\"cleared\": \"" + what + "\"}" : "cleared " + what + " of uid " + uid);
  }
}
