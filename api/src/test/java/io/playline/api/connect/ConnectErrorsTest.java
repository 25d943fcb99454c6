package io.playline.api.connect;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Struct;
import com.google.protobuf.util.JsonFormat;
import io.grpc.Status;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Connect error bodies parse as JSON whatever the message holds, and codes map to the protocol's HTTP statuses. */
class ConnectErrorsTest {
  @Test
  void aMessageWithQuotesBackslashesAndControlCharactersStaysValidJson() throws Exception {
    String message = "uid: \"0\" \\ (expected: > 0)\n\ttab\u0001 é";
    Struct parsed = parse(ConnectErrors.body(Status.INVALID_ARGUMENT.withDescription(message)));
    assertThat(parsed.getFieldsOrThrow("code").getStringValue()).isEqualTo("invalid_argument");
    assertThat(parsed.getFieldsOrThrow("message").getStringValue()).isEqualTo(message);
    assertThat(parse(ConnectErrors.body(Status.CANCELLED)).getFieldsMap()).containsOnlyKeys("code");
  }

  @Test
  void codesAndHttpStatusesFollowTheProtocol() {
    assertThat(ConnectErrors.name(Status.Code.CANCELLED)).isEqualTo("canceled");
    assertThat(ConnectErrors.name(Status.Code.RESOURCE_EXHAUSTED)).isEqualTo("resource_exhausted");
    assertThat(ConnectErrors.httpStatus(Status.Code.UNAUTHENTICATED).code()).isEqualTo(401);
    assertThat(ConnectErrors.httpStatus(Status.Code.RESOURCE_EXHAUSTED).code()).isEqualTo(429);
    assertThat(ConnectErrors.httpStatus(Status.Code.UNAVAILABLE).code()).isEqualTo(503);
    assertThat(ConnectErrors.httpStatus(Status.Code.FAILED_PRECONDITION).code()).isEqualTo(400);
    assertThat(ConnectErrors.httpStatus(Status.Code.CANCELLED).code()).isEqualTo(499);
    assertThat(ConnectErrors.httpStatus(Status.Code.DATA_LOSS).code()).isEqualTo(500);
  }

  private static Struct parse(byte[] body) throws Exception {
    Struct.Builder b = Struct.newBuilder();
    JsonFormat.parser().merge(new String(body, StandardCharsets.UTF_8), b);
    return b.build();
  }
}
