package io.playline.bench.reads;

import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.playline.proto.v1.HistoryGrpc;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The HTTP/2 connections {@code bench reads} sends the internal API's calls over, each call carrying
 * the service token: requests are spread over them at random, each with a 10 s deadline.
 */
final class ApiChannels {
  private final List<ManagedChannel> open = new ArrayList<>();
  private final List<HistoryGrpc.HistoryStub> stubs = new ArrayList<>();

  /** {@code channels} connections to {@code api} (host:port), every call with {@code bearer}. */
  ApiChannels(String api, String bearer, int channels) {
    Metadata headers = new Metadata();
    headers.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), bearer);
    URI target = URI.create("grpc://" + api);
    for (int i = 0; i < channels; i++) {
      ManagedChannel ch = NettyChannelBuilder.forAddress(target.getHost(), target.getPort()).usePlaintext()
          .directExecutor().intercept(MetadataUtils.newAttachHeadersInterceptor(headers)).build();
      open.add(ch);
      stubs.add(HistoryGrpc.newStub(ch));
    }
  }

  /** One stub per connection, without a deadline (seeding spreads its calls over them itself). */
  List<HistoryGrpc.HistoryStub> stubs() {
    return stubs;
  }

  /** A random connection's stub for one call, with its deadline. */
  HistoryGrpc.HistoryStub stub() {
    return stubs.get(ThreadLocalRandom.current().nextInt(stubs.size())).withDeadlineAfter(10, TimeUnit.SECONDS);
  }

  /** Closes every connection, waiting up to 5 s for each. */
  void shutdown() throws InterruptedException {
    for (ManagedChannel ch : open) {
      ch.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }
}
