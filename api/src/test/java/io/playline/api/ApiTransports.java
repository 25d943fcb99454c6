package io.playline.api;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.playline.proto.v1.HistoryGrpc;
import io.playline.testing.HBaseNamespace;
import io.playline.testing.KafkaNamespace;
import io.playline.testing.RedisNamespace;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The internal API's three transports as a client sees them — gRPC, Connect binary, Connect JSON —
 * each call answered the same way: a status code, and the error's message or the response (with
 * the uids of its records cleared, so that answers for different users compare), on one real api
 * node of its own.
 */
final class ApiTransports {
  /** A client's view of an answer; {@code response} is null for an error. */
  record Answer(Status.Code code, String message, @Nullable Message response) {
    static Answer refused(Status.Code code, String message) {
      return new Answer(code, message, null);
    }
  }

  /** A transport. */
  interface Transport {
    Answer call(String method, Message request) throws Exception;
  }

  private final TestApi api;
  private final ManagedChannel channel;
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(10)).build();

  /** A {@link TestApi} on the test's namespaces, and its transports; {@link #close()} stops both. */
  static ApiTransports start(RedisNamespace redis, KafkaNamespace kafka, HBaseNamespace hbase) {
    return new ApiTransports(TestApi.start(redis, kafka, hbase, Map.of()));
  }

  private ApiTransports(TestApi api) {
    this.api = api;
    this.channel = api.channel();
  }

  /** The node the transports call. */
  TestApi api() {
    return api;
  }

  /** A channel to the gRPC port with a service token. */
  ManagedChannel channel() {
    return channel;
  }

  List<Transport> all() {
    return List.of(this::grpc, this::connectBinary, this::connectJson);
  }

  Answer grpc(String method, Message request) {
    try {
      return ok(ClientCalls.blockingUnaryCall(channel, descriptor(method),
          CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS), request));
    } catch (StatusRuntimeException e) {
      String description = e.getStatus().getDescription();
      return Answer.refused(e.getStatus().getCode(), description == null ? "" : description);
    }
  }

  Answer connectBinary(String method, Message request) throws Exception {
    HttpResponse<byte[]> response = post(method, "application/proto", request.toByteArray(), TestApi.bearer());
    return response.statusCode() == 200
        ? ok(responsePrototype(method).getParserForType().parseFrom(response.body()))
        : connectError(response);
  }

  Answer connectJson(String method, Message request) throws Exception {
    return connectJson(method, JsonFormat.printer().print(request));
  }

  Answer connectJson(String method, String json) throws Exception {
    HttpResponse<byte[]> response = post(method, "application/json", json.getBytes(StandardCharsets.UTF_8),
        TestApi.bearer());
    if (response.statusCode() != 200) {
      return connectError(response);
    }
    Message.Builder b = responsePrototype(method).newBuilderForType();
    JsonFormat.parser().merge(new String(response.body(), StandardCharsets.UTF_8), b);
    return ok(b.build());
  }

  HttpResponse<byte[]> post(String method, String contentType, byte[] body, String authorization) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + api.api().httpAddress().getPort()
            + "/playline.v1.History/" + method)).timeout(Duration.ofSeconds(20)).header("Content-Type", contentType)
        .header("Authorization", authorization).POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(),
        HttpResponse.BodyHandlers.ofByteArray());
  }

  /** A Connect error's code and message, from its JSON body. */
  static Answer connectError(HttpResponse<byte[]> response) {
    JsonObject error = JsonParser.parseString(new String(response.body(), StandardCharsets.UTF_8)).getAsJsonObject();
    return Answer.refused(Status.Code.valueOf(error.get("code").getAsString().toUpperCase(Locale.ROOT)),
        error.has("message") ? error.get("message").getAsString() : "");
  }

  private static Answer ok(Message response) {
    return new Answer(Status.Code.OK, "", withoutUids(response));
  }

  private static Message withoutUids(Message message) {
    Message.Builder b = message.toBuilder();
    for (FieldDescriptor f : message.getDescriptorForType().getFields()) {
      if (f.getName().equals("uid")) {
        b.clearField(f);
      } else if (f.getJavaType() == FieldDescriptor.JavaType.MESSAGE && f.isRepeated()) {
        b.clearField(f);
        for (int i = 0; i < message.getRepeatedFieldCount(f); i++) {
          b.addRepeatedField(f, withoutUids((Message) message.getRepeatedField(f, i)));
        }
      } else if (f.getJavaType() == FieldDescriptor.JavaType.MESSAGE && message.hasField(f)) {
        b.setField(f, withoutUids((Message) message.getField(f)));
      }
    }
    return b.build();
  }

  @SuppressWarnings("unchecked") // every History method takes and returns generated messages
  private static MethodDescriptor<Message, Message> descriptor(String method) {
    return (MethodDescriptor<Message, Message>) HistoryGrpc.getServiceDescriptor().getMethods().stream()
        .filter(m -> method.equals(m.getBareMethodName())).findFirst().orElseThrow();
  }

  private static Message responsePrototype(String method) {
    return (Message) ((MethodDescriptor.PrototypeMarshaller<?>) descriptor(method).getResponseMarshaller())
        .getMessagePrototype();
  }

  void close() throws InterruptedException {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    api.close();
  }
}
