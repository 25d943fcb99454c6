package io.playline.node.errors;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.playline.core.query.RateLimitedException;
import io.playline.proto.v1.Error.Code;
import io.playline.proto.v1.Error;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

class ServiceErrorsTest {
  @Test
  void aRefusedDeleteIsRateLimitedWithItsRetryTimeOnTheStreamAndResourceExhaustedOnTheApi() {
    Error error = ServiceErrors.toError(
        new CompletionException(new RateLimitedException("delete refused; retry after 1234 ms", 1234)), "delete");

    assertThat(error.getCode()).isEqualTo(Code.RATE_LIMITED);
    assertThat(error.getRetryAfterMs()).isEqualTo(1234);
    assertThat(error.getMessage()).isEqualTo("delete refused; retry after 1234 ms");
    Status status = StatusMapper.toStatus(error);
    assertThat(status.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(status.getDescription()).contains("retry after 1234 ms");
  }
}
