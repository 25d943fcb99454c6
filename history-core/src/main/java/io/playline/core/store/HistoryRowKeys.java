package io.playline.core.store;

import io.playline.proto.v1.Business;
import io.playline.proto.v1.ItemKey;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The HBase layout of {@code playline:history}: row key = the first two hex digits of
 * md5(decimal uid) followed by the decimal uid, so users spread evenly over 256 key ranges while a
 * row key still names its user; qualifier = {@code oid_business} with the business enum number
 * (e.g. {@code 12345_1}), so all items of one business share the suffix {@code _<business>}.
 * Stateless and thread-safe.
 */
public final class HistoryRowKeys {
  private static final HexFormat HEX = HexFormat.of();

  private HistoryRowKeys() {}

  /** The row key of {@code uid}, e.g. {@code "c4" + "12345"} as ASCII bytes. */
  public static byte[] row(long uid) {
    String decimal = Long.toString(uid);
    return ascii(salt(decimal) + decimal);
  }

  /** The uid a {@link #row} key was made from. */
  public static long uid(byte[] row) {
    String s = new String(row, StandardCharsets.US_ASCII);
    if (s.length() < 3) {
      throw new IllegalArgumentException("not a history row key: " + s);
    }
    String decimal = s.substring(2);
    long uid = Long.parseLong(decimal);
    if (!s.startsWith(salt(decimal))) {
      throw new IllegalArgumentException("not a history row key (salt mismatch): " + s);
    }
    return uid;
  }

  /** The qualifier of an item: {@code oid_business}. */
  public static byte[] qualifier(Business business, long oid) {
    return qualifier(business.getNumber(), oid);
  }

  /** The qualifier of an item by business number, which need not be known to this version. */
  public static byte[] qualifier(int businessNumber, long oid) {
    return ascii(oid + "_" + businessNumber);
  }

  public static byte[] qualifier(ItemKey item) {
    return qualifier(item.getBusinessValue(), item.getOid());
  }

  /** The item a {@link #qualifier} names; the business may be {@code UNRECOGNIZED} for a newer writer's number. */
  public static ItemKey item(byte[] qualifier) {
    String s = new String(qualifier, StandardCharsets.US_ASCII);
    int underscore = s.lastIndexOf('_');
    if (underscore <= 0 || underscore == s.length() - 1) {
      throw new IllegalArgumentException("not a history qualifier: " + s);
    }
    return ItemKey.newBuilder()
        .setOid(Long.parseLong(s.substring(0, underscore)))
        .setBusinessValue(Integer.parseInt(s.substring(underscore + 1)))
        .build();
  }

  /**
   * A Java regular expression matching the qualifiers of any of {@code businesses} (by number),
   * e.g. {@code ^[0-9]+_(1|4)$}: what a qualifier filter needs to find one user's items of them.
   */
  public static String qualifierPattern(Iterable<Integer> businessNumbers) {
    StringBuilder alternatives = new StringBuilder();
    for (int n : businessNumbers) {
      if (alternatives.length() > 0) {
        alternatives.append('|');
      }
      alternatives.append(n);
    }
    return "^[0-9]+_(" + alternatives + ")$";
  }

  private static String salt(String decimal) {
    try {
      byte[] md5 = MessageDigest.getInstance("MD5").digest(ascii(decimal));
      return HEX.toHexDigits(md5[0]);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("MD5 unavailable", e);
    }
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
