package io.playline.core.aggregate;

import io.playline.proto.v1.HistoryRecord;
import io.playline.proto.v1.ItemKey;

/** One item of a user's history, (business, oid), as a cheap map key. Immutable. */
record ItemId(int business, long oid) {
  static ItemId of(HistoryRecord r) {
    return new ItemId(r.getBusinessValue(), r.getOid());
  }

  static ItemId of(ItemKey key) {
    return new ItemId(key.getBusinessValue(), key.getOid());
  }

  ItemKey toKey() {
    return ItemKey.newBuilder().setBusinessValue(business).setOid(oid).build();
  }
}
