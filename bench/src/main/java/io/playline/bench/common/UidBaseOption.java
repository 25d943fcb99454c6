package io.playline.bench.common;

import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/**
 * {@code --uid-base} where it defaults to a random block of fresh users ({@code bench}, {@code bench
 * reads}); each command picks its own blocks, which its other user ranges must not meet. {@code
 * bench hostile}'s {@code --uid-base} is not this one: it has a fixed default and also places the
 * attackers' users.
 */
public final class UidBaseOption {
  @Option(names = "--uid-base", paramLabel = "UID",
      description = "First user id (default: a random block, so runs use fresh users).")
  @Nullable Long uidBase;

  /** The first user id given, else one of {@code randomBlock}. */
  public long uidBase(LongSupplier randomBlock) {
    return uidBase != null ? uidBase : randomBlock.getAsLong();
  }
}
