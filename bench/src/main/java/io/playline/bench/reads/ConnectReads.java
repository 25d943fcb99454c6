package io.playline.bench.reads;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import io.playline.proto.v1.ListHistoryResponse;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletionStage;

/**
 * {@code bench reads --kind list-connect}: the same {@code ListHistory} first page as {@code page},
 * over the internal API's HTTP port as the Connect protocol in JSON — what a backend without gRPC
 * sends: HTTP/1.1 with keep-alive through the JDK's client (a pool of connections, one per request
 * in flight), the answer parsed back by the proto3 JSON mapping and checked like the gRPC one.
 * Thread-safe.
 */
final class ConnectReads {
  private static final JsonFormat.Parser PARSER = JsonFormat.parser();

  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(10)).build();
  private final URI listHistory;
  private final String authorization;
  private final int expected;

  /**
   * @param apiHttp the port's base URL ({@code playline.apiHttp} of the endpoints file)
   * @param authorization the {@code Authorization} value (a service token)
   * @param expected records a page must hold
   */
  ConnectReads(String apiHttp, String authorization, int expected) {
    this.listHistory = URI.create(apiHttp + "/playline.v1.History/ListHistory");
    this.authorization = authorization;
    this.expected = expected;
  }

  /** The first page of {@code limit} records of {@code uid}; fails on another status or a short page. */
  CompletionStage<ListHistoryResponse> page(long uid, int limit) {
    HttpRequest request = HttpRequest.newBuilder(listHistory).timeout(Duration.ofSeconds(10))
        .header("Content-Type", "application/json").header("Connect-Protocol-Version", "1")
        .header("Authorization", authorization)
        .POST(HttpRequest.BodyPublishers.ofString("{\"uid\":\"" + uid + "\",\"limit\":" + limit + "}")).build();
    return http.sendAsync(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8)).thenApply(answer -> {
      if (answer.statusCode() != 200) {
        throw new IllegalStateException("ListHistory over HTTP: " + answer.statusCode() + " " + answer.body());
      }
      ListHistoryResponse.Builder page = ListHistoryResponse.newBuilder();
      try {
        PARSER.merge(answer.body(), page);
      } catch (InvalidProtocolBufferException e) {
        throw new IllegalStateException("ListHistory over HTTP: not a page: " + e.getMessage(), e);
      }
      if (page.getRecordsCount() != expected) {
        throw new IllegalStateException("incomplete answer: " + page.getRecordsCount() + " of " + expected + " records");
      }
      return page.build();
    });
  }
}
