package io.playline.node.edge;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The admission on the first bytes after a PROXY header: asked once, on the first read; an admitted
 * connection's bytes go on and the step leaves the pipeline, a refused one's are released unread.
 */
class AdmitOnFirstReadTest {
  private final AtomicInteger asked = new AtomicInteger();
  private EmbeddedChannel channel;

  @AfterEach
  void close() {
    channel.finishAndReleaseAll();
  }

  private EmbeddedChannel channel(boolean admit) {
    channel = new EmbeddedChannel(new AdmitOnFirstRead(() -> {
      asked.incrementAndGet();
      return admit;
    }));
    return channel;
  }

  private static ByteBuf bytes(int... values) {
    ByteBuf b = Unpooled.buffer();
    for (int v : values) {
      b.writeByte(v);
    }
    return b;
  }

  @Test
  void anAdmittedConnectionsBytesGoOnAndTheStepLeaves() {
    EmbeddedChannel ch = channel(true);
    assertThat(asked).as("not before the first read").hasValue(0);
    ByteBuf first = bytes(1, 2);
    ch.writeInbound(first);
    assertThat(asked).hasValue(1);
    assertThat(ch.pipeline().get(AdmitOnFirstRead.class)).isNull();
    ByteBuf passed = ch.readInbound();
    assertThat(passed).isSameAs(first);
    assertThat(passed.refCnt()).isEqualTo(1);
    passed.release();

    ByteBuf second = bytes(3);
    ch.writeInbound(second);
    assertThat(asked).as("asked once").hasValue(1);
    ByteBuf passedToo = ch.readInbound();
    assertThat(passedToo).isSameAs(second);
    second.release();
  }

  @Test
  void aRefusedConnectionsBytesAreReleasedUnread() {
    EmbeddedChannel ch = channel(false);
    ByteBuf first = bytes(1, 2);
    ch.writeInbound(first);
    assertThat(asked).hasValue(1);
    assertThat(first.refCnt()).as("released").isZero();
    Object passed = ch.readInbound();
    assertThat(passed).as("not passed on").isNull();
  }
}
