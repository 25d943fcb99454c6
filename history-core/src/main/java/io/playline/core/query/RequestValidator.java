package io.playline.core.query;

import io.playline.core.config.QueryConfig;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.Cursor;
import io.playline.proto.v1.GetProgressRequest;
import io.playline.proto.v1.ItemKey;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Checks every request to {@link HistoryService} in one place, for every transport, and throws
 * {@link InvalidRequestException} with a client-safe message naming the field, the value and what
 * was expected. Immutable and thread-safe.
 */
final class RequestValidator {
  private final QueryConfig config;

  RequestValidator(QueryConfig config) {
    this.config = config;
  }

  void uid(long uid) {
    if (uid <= 0) {
      throw new InvalidRequestException("uid: " + uid + " (expected: > 0)");
    }
  }

  /** The distinct items of {@code items}, in first-seen order. */
  List<ItemKey> items(List<ItemKey> items) {
    if (items.size() > config.maxItems()) {
      throw new InvalidRequestException("items: " + items.size() + " entries (expected: at most "
          + config.maxItems() + ")");
    }
    Set<ItemKey> distinct = new LinkedHashSet<>();
    for (int i = 0; i < items.size(); i++) {
      ItemKey item = items.get(i);
      item(item, "items[" + i + "]");
      distinct.add(ItemKey.newBuilder().setBusinessValue(item.getBusinessValue()).setOid(item.getOid()).build());
    }
    return List.copyOf(distinct);
  }

  /**
   * The distinct items of each of {@code requests}, in request order, every request checked before
   * this returns: at most {@code query.batch.max.requests} of them naming at most {@code
   * query.batch.max.items} items together, each with a valid uid and items (a refusal names {@code
   * requests[i]} and the field within it).
   */
  List<List<ItemKey>> progressBatch(List<GetProgressRequest> requests) {
    if (requests.size() > config.batchMaxRequests()) {
      throw new InvalidRequestException("requests: " + requests.size() + " entries (expected: at most "
          + config.batchMaxRequests() + ")");
    }
    long named = 0;
    for (GetProgressRequest r : requests) {
      named += r.getItemsCount();
    }
    if (named > config.batchMaxItems()) {
      throw new InvalidRequestException("requests: " + named + " items in all (expected: at most "
          + config.batchMaxItems() + ")");
    }
    List<List<ItemKey>> items = new ArrayList<>(requests.size());
    for (int i = 0; i < requests.size(); i++) {
      GetProgressRequest r = requests.get(i);
      try {
        uid(r.getUid());
        items.add(items(r.getItemsList()));
      } catch (InvalidRequestException e) {
        throw new InvalidRequestException("requests[" + i + "]." + e.getMessage());
      }
    }
    return items;
  }

  /** The distinct businesses of {@code businesses}, in first-seen order. */
  List<Business> businesses(List<Business> businesses) {
    if (businesses.size() > config.maxItems()) {
      throw new InvalidRequestException("businesses: " + businesses.size() + " entries (expected: at most "
          + config.maxItems() + ")");
    }
    Set<Business> distinct = new LinkedHashSet<>();
    for (int i = 0; i < businesses.size(); i++) {
      Business b = businesses.get(i);
      if (b == Business.UNRECOGNIZED || b == Business.BUSINESS_UNSPECIFIED) {
        throw new InvalidRequestException("businesses[" + i + "]: " + describe(b) + " (expected: a known business)");
      }
      distinct.add(b);
    }
    return new ArrayList<>(distinct);
  }

  /**
   * The businesses a clear names, empty for every business: exactly one of a non-empty {@code
   * businesses} and {@code allBusinesses}. An empty list alone is refused, not taken as "all".
   */
  List<Business> clearScope(List<Business> businesses, boolean allBusinesses) {
    if (allBusinesses) {
      if (!businesses.isEmpty()) {
        throw new InvalidRequestException("all_businesses: true with businesses: " + businesses.size()
            + " entries (expected: one or the other)");
      }
      return List.of();
    }
    if (businesses.isEmpty()) {
      throw new InvalidRequestException("businesses: empty (expected: the businesses to clear, or all_businesses: "
          + "true to clear every business)");
    }
    return businesses(businesses);
  }

  /** The page size: {@code limit}, or the default for 0. */
  int limit(int limit) {
    if (limit == 0) {
      return config.listDefaultLimit();
    }
    if (limit < 1 || limit > config.listMaxLimit()) {
      throw new InvalidRequestException("limit: " + limit + " (expected: 0 for the default "
          + config.listDefaultLimit() + ", or 1.." + config.listMaxLimit() + ")");
    }
    return limit;
  }

  /** The position a cursor names; null for none. Rejects cursors the server never hands out. */
  @Nullable TimelinePosition cursor(@Nullable Cursor after) {
    if (after == null) {
      return null;
    }
    if (after.getViewTimeMs() < 0) {
      throw new InvalidRequestException("after.view_time_ms: " + after.getViewTimeMs()
          + " (expected: >= 0; pass a page's next cursor unchanged)");
    }
    item(after.getItem(), "after.item");
    return TimelinePosition.of(after);
  }

  private static void item(ItemKey item, String field) {
    if (!TimelinePosition.known(item.getBusinessValue())) {
      throw new InvalidRequestException(field + ".business: " + item.getBusinessValue()
          + " (expected: a known business)");
    }
    if (item.getOid() <= 0) {
      throw new InvalidRequestException(field + ".oid: " + item.getOid() + " (expected: > 0)");
    }
  }

  private static String describe(Business b) {
    return b == Business.UNRECOGNIZED ? "unrecognized" : Integer.toString(b.getNumber());
  }
}
