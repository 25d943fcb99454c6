package io.playline.standalone.cli;

import io.playline.proto.v1.Business;
import io.playline.proto.v1.Cursor;
import io.playline.proto.v1.ItemKey;
import com.google.protobuf.InvalidProtocolBufferException;
import java.util.Base64;
import java.util.Locale;

/** Parses and prints the CLI's item ({@code VIDEO:123}), business and cursor arguments. */
final class Items {
  private Items() {}

  static ItemKey item(String text) {
    int colon = text.indexOf(':');
    if (colon <= 0) {
      throw new IllegalArgumentException("--item: '" + text + "' (expected: BUSINESS:OID, e.g. VIDEO:123)");
    }
    try {
      return ItemKey.newBuilder().setBusiness(business(text.substring(0, colon)))
          .setOid(Long.parseLong(text.substring(colon + 1))).build();
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--item: '" + text + "' (expected: BUSINESS:OID with a numeric oid)");
    }
  }

  static Business business(String text) {
    try {
      Business b = Business.valueOf(text.trim().toUpperCase(Locale.ROOT));
      if (b != Business.BUSINESS_UNSPECIFIED && b != Business.UNRECOGNIZED) {
        return b;
      }
    } catch (IllegalArgumentException e) {
      // fall through to the message below
    }
    throw new IllegalArgumentException("business: '" + text + "' (expected: VIDEO, ARTICLE, COMIC, LIVE, AUDIO or EPISODE)");
  }

  /** A cursor as the opaque text the CLI prints for {@code --after}. */
  static String cursor(Cursor cursor) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(cursor.toByteArray());
  }

  static Cursor cursor(String text) {
    try {
      return Cursor.parseFrom(Base64.getUrlDecoder().decode(text));
    } catch (IllegalArgumentException | InvalidProtocolBufferException e) {
      throw new IllegalArgumentException("--after: not a cursor printed by 'history list'");
    }
  }
}
