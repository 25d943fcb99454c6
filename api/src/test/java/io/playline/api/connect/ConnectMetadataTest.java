package io.playline.api.connect;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.ForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.playline.api.config.ApiHttpConfig;
import io.playline.core.config.ConfigSource;
import io.playline.node.loops.EventLoops;
import io.playline.proto.v1.GetPausedRequest;
import io.playline.proto.v1.GetPausedResponse;
import io.playline.proto.v1.HistoryGrpc;
import io.playline.proto.v1.SetPausedRequest;
import io.playline.proto.v1.SetPausedResponse;
import io.playline.time.Time;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpHeaders;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a Connect answer carries besides its message, on a Connect port serving a History service
 * of this test's own (no store: only the protocol is under test): the service's headers as
 * headers, its trailers as {@code trailer-*} after a success and as headers with an error, binary
 * values in base64, the protocol's own names never taken from a service; and the media types a 415
 * names.
 */
class ConnectMetadataTest {
  private static final Metadata.Key<String> SHARD = Metadata.Key.of("x-shard", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<String> COST = Metadata.Key.of("x-cost", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<String> HINT = Metadata.Key.of("x-hint", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<byte[]> TRACE = Metadata.Key.of("x-trace-bin", Metadata.BINARY_BYTE_MARSHALLER);
  private static final Metadata.Key<String> RESERVED = Metadata.Key.of("connect-x", Metadata.ASCII_STRING_MARSHALLER);

  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private EventLoops loops;
  private ConnectServer server;

  /** GetPaused answers; SetPaused fails with a trailer of its own. */
  private static final class Service extends HistoryGrpc.HistoryImplBase {
    @Override
    public void getPaused(GetPausedRequest request, StreamObserver<GetPausedResponse> response) {
      response.onNext(GetPausedResponse.newBuilder().setPaused(true).build());
      response.onCompleted();
    }

    @Override
    public void setPaused(SetPausedRequest request, StreamObserver<SetPausedResponse> response) {
      Metadata trailers = new Metadata();
      trailers.put(HINT, "pause later");
      response.onError(Status.FAILED_PRECONDITION.withDescription("not now").asRuntimeException(trailers));
    }
  }

  /** Adds a header to every answer that sends headers, and trailers (one binary, one reserved) to every call. */
  private static final class AddsMetadata implements ServerInterceptor {
    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
        ServerCallHandler<Q, R> next) {
      return next.startCall(new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
        @Override
        public void sendHeaders(Metadata h) {
          h.put(SHARD, "7");
          super.sendHeaders(h);
        }

        @Override
        public void close(Status status, Metadata trailers) {
          trailers.put(COST, "237");
          trailers.put(TRACE, new byte[] {1, 2, 3, (byte) 0xfb});
          trailers.put(RESERVED, "not the service's");
          super.close(status, trailers);
        }
      }, headers);
    }
  }

  @BeforeEach
  void start() throws Exception {
    loops = EventLoops.create(1);
    server = ConnectServer.start(loops, "127.0.0.1", ApiHttpConfig.from(ConfigSource.empty(), 0), 4096, null,
        new SimpleMeterRegistry(), Time.SYSTEM, ServerInterceptors.intercept(new Service(), new AddsMetadata()));
  }

  @AfterEach
  void stop() {
    server.close();
    loops.close();
  }

  private HttpResponse<String> post(String method, String contentType, String body) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.address().getPort()
            + "/playline.v1.History/" + method)).timeout(Duration.ofSeconds(10)).header("Content-Type", contentType)
        .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void aSuccessCarriesTheServicesHeadersAndItsTrailersPrefixed() throws Exception {
    HttpResponse<String> ok = post("GetPaused", "application/json", "{\"uid\":\"1\"}");
    assertThat(ok.statusCode()).isEqualTo(200);
    assertThat(ok.body()).isEqualTo("{\"paused\":true}");
    HttpHeaders h = ok.headers();
    assertThat(h.firstValue("x-shard")).hasValue("7");
    assertThat(h.firstValue("trailer-x-cost")).hasValue("237");
    assertThat(h.firstValue("trailer-x-trace-bin")).as("unpadded base64").hasValue("AQID+w");
    assertThat(h.firstValue("x-cost")).isEmpty();
    assertThat(h.map()).doesNotContainKeys("trailer-connect-x", "connect-x");
  }

  @Test
  void anErrorCarriesTheServicesMetadataAsHeaders() throws Exception {
    HttpResponse<String> failed = post("SetPaused", "application/json", "{\"uid\":\"1\",\"paused\":true}");
    assertThat(failed.statusCode()).isEqualTo(400);
    assertThat(failed.body()).isEqualTo("{\"code\":\"failed_precondition\",\"message\":\"not now\"}");
    HttpHeaders h = failed.headers();
    assertThat(h.firstValue("x-hint")).hasValue("pause later");
    assertThat(h.firstValue("x-cost")).hasValue("237");
    assertThat(h.firstValue("x-trace-bin")).hasValue("AQID+w");
    assertThat(h.map().keySet()).noneMatch(k -> k.startsWith("trailer-") || k.startsWith("connect-"));
    assertThat(h.firstValue("content-type")).hasValue("application/json");
  }

  @Test
  void anUnsupportedMediaTypeIsAnsweredWithTheOnesAccepted() throws Exception {
    HttpResponse<String> refused = post("GetPaused", "text/plain", "uid=1");
    assertThat(refused.statusCode()).isEqualTo(415);
    assertThat(refused.headers().firstValue("accept-post")).hasValue("application/json, application/proto");
    assertThat(refused.headers().firstValue("accept")).hasValue("application/json, application/proto");
  }
}
