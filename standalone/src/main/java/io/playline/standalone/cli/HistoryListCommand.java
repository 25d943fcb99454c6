package io.playline.standalone.cli;

import io.playline.proto.v1.HistoryGrpc;
import io.playline.proto.v1.ListHistoryRequest;
import io.playline.proto.v1.ListHistoryResponse;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code history list}: one page of a user's timeline, newest first. */
@Command(name = "list", mixinStandardHelpOptions = true, description = "List a user's history, newest first.")
final class HistoryListCommand extends HistoryCommand.Base {
  @Option(names = "--business", split = ",", paramLabel = "BUSINESS", description = "Only these businesses (e.g. VIDEO,LIVE).")
  List<String> businesses = new ArrayList<>();

  @Option(names = "--limit", defaultValue = "20", description = "Records per page, 1-100 (default: ${DEFAULT-VALUE}).")
  int limit = 20;

  @Option(names = "--after", paramLabel = "CURSOR", description = "Continue after this cursor (printed by a previous page).")
  String after = "";

  @Override
  void run(HistoryGrpc.HistoryBlockingStub stub, PrintWriter out) throws Exception {
    ListHistoryRequest.Builder request = ListHistoryRequest.newBuilder().setUid(uid).setLimit(limit);
    businesses.forEach(b -> request.addBusinesses(Items.business(b)));
    if (!after.isEmpty()) {
      request.setAfter(Items.cursor(after));
    }
    ListHistoryResponse page = stub.listHistory(request.build());
    if (api.json) {
      printJson(out, page);
      return;
    }
    RecordTable.print(out, page.getRecordsList());
    if (page.getHasMore()) {
      out.println("more: --after " + Items.cursor(page.getNext()));
    }
  }
}
