package io.playline.core.write;

import java.util.List;

/**
 * The answer to a {@link WriteBatch}, index-aligned with it.
 *
 * @param writes one outcome per user write
 * @param firstToday per first-today check: true when it was the user's first of the day
 */
public record BatchOutcome(List<WriteOutcome> writes, boolean[] firstToday) {}
