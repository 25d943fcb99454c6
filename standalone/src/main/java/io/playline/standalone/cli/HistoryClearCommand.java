package io.playline.standalone.cli;

import io.playline.proto.v1.ClearHistoryRequest;
import io.playline.proto.v1.HistoryGrpc;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code history clear}: clears some businesses, or everything, of a user's history. */
@Command(name = "clear", mixinStandardHelpOptions = true, description = "Clear a user's history (all, or some businesses).")
final class HistoryClearCommand extends HistoryCommand.Base {
  @Option(names = "--business", split = ",", paramLabel = "BUSINESS", description = "Only these businesses (default: everything).")
  List<String> businesses = new ArrayList<>();

  @Override
  void run(HistoryGrpc.HistoryBlockingStub stub, PrintWriter out) throws Exception {
    ClearHistoryRequest.Builder request = ClearHistoryRequest.newBuilder().setUid(uid);
    businesses.forEach(b -> request.addBusinesses(Items.business(b)));
    stub.clearHistory(request.build());
    String what = businesses.isEmpty() ? "everything" : String.join(",", businesses);
    out.println(api.json ? "{\"cleared\": \"" + what + "\"}" : "cleared " + what + " of uid " + uid);
  }
}
