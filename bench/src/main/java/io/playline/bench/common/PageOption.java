package io.playline.bench.common;

import picocli.CommandLine.Option;

/** {@code --page}: records per history page read, declared once for {@code bench reads} and {@code bench heavy}. */
public final class PageOption {
  @Option(names = "--page", defaultValue = "20",
      description = "Records per ListHistory page (default: ${DEFAULT-VALUE}).")
  int page = 20;

  /** Records per page: 20 unless given. */
  public int page() {
    return page;
  }
}
