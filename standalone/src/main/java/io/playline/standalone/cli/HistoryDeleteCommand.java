package io.playline.standalone.cli;

import io.playline.proto.v1.DeleteHistoryRequest;
import io.playline.proto.v1.HistoryGrpc;
import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code history delete}: removes items from a user's history in every tier. */
@Command(name = "delete", mixinStandardHelpOptions = true, description = "Delete items from a user's history.")
final class HistoryDeleteCommand extends HistoryCommand.Base {
  @Option(names = "--item", required = true, paramLabel = "BUSINESS:OID", description = "Item, e.g. VIDEO:123 (repeatable).")
  List<String> items;

  @Override
  void run(HistoryGrpc.HistoryBlockingStub stub, PrintWriter out) throws Exception {
    DeleteHistoryRequest.Builder request = DeleteHistoryRequest.newBuilder().setUid(uid);
    items.forEach(i -> request.addItems(Items.item(i)));
    stub.deleteHistory(request.build());
    out.println(api.json ? "{\"deleted\": " + items.size() + "}" : "deleted " + items.size() + " item(s) of uid " + uid);
  }
}
