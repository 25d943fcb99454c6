package io.playline.standalone.cli;

import io.playline.proto.v1.GetProgressRequest;
import io.playline.proto.v1.GetProgressResponse;
import io.playline.proto.v1.HistoryGrpc;
import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code history progress}: where the user is in some items. */
@Command(name = "progress", mixinStandardHelpOptions = true, description = "Show a user's progress in items.")
final class HistoryProgressCommand extends HistoryCommand.Base {
  @Option(names = "--item", required = true, paramLabel = "BUSINESS:OID", description = "Item, e.g. VIDEO:123 (repeatable).")
  List<String> items;

  @Override
  void run(HistoryGrpc.HistoryBlockingStub stub, PrintWriter out) throws Exception {
    GetProgressRequest.Builder request = GetProgressRequest.newBuilder().setUid(uid);
    items.forEach(i -> request.addItems(Items.item(i)));
    GetProgressResponse response = stub.getProgress(request.build());
    if (api.json) {
      printJson(out, response);
    } else {
      RecordTable.print(out, response.getRecordsList());
    }
  }
}
