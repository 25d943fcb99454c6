package io.playline.node.edge;

import io.playline.core.config.ConfigSource;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * How many leading bits of a client's address name "one address" for every per-address budget and
 * penalty: IPv4 by {@code connection.address.prefix.ipv4} (default /32), IPv6 by {@code
 * connection.address.prefix.ipv6} (default /64). A home or a phone is given a whole IPv6 /64, so
 * keying on the exact address would hand an attacker 2^64 fresh budgets; an IPv4-mapped IPv6
 * address counts as the IPv4 address it carries. The key is the address with the bits past its
 * prefix cleared (scope dropped), so every address of one prefix is the same map key.
 *
 * @param ipv4Bits the IPv4 prefix length (8..32)
 * @param ipv6Bits the IPv6 prefix length (16..128)
 */
public record AddressPrefixes(int ipv4Bits, int ipv6Bits) {
  /** /32 and /64: one IPv4 address, one IPv6 subnet (what a home or a phone is given). */
  public static final AddressPrefixes DEFAULT = new AddressPrefixes(32, 64);

  public AddressPrefixes {
    EdgeSettings.ADDRESS_PREFIX_IPV4.check(ipv4Bits);
    EdgeSettings.ADDRESS_PREFIX_IPV6.check(ipv6Bits);
  }

  /** Reads and validates {@code connection.address.prefix.ipv4} and {@code .ipv6}. */
  public static AddressPrefixes from(ConfigSource c) {
    return new AddressPrefixes(EdgeSettings.ADDRESS_PREFIX_IPV4.read(c), EdgeSettings.ADDRESS_PREFIX_IPV6.read(c));
  }

  /** The budget key of {@code address}: its prefix, the rest of its bits cleared. */
  public InetAddress key(InetAddress address) {
    byte[] bytes = address.getAddress();
    if (bytes.length == 16 && isIpv4Mapped(bytes)) {
      byte[] v4 = new byte[4];
      System.arraycopy(bytes, 12, v4, 0, 4);
      bytes = v4;
    }
    int bits = bytes.length == 4 ? ipv4Bits : ipv6Bits;
    if (bits == bytes.length * 8 && (bytes.length == 4 ? address instanceof Inet4Address
        : !(address instanceof Inet4Address) && ((java.net.Inet6Address) address).getScopeId() == 0)) {
      return address; // the whole address: nothing to clear (the common IPv4 case allocates nothing)
    }
    for (int i = 0; i < bytes.length; i++) {
      int keep = Math.max(0, Math.min(8, bits - 8 * i));
      bytes[i] &= (byte) (0xFF00 >>> keep);
    }
    try {
      return InetAddress.getByAddress(bytes);
    } catch (UnknownHostException e) { // only for lengths other than 4 and 16
      throw new IllegalStateException(e);
    }
  }

  /** {@code ::ffff:a.b.c.d} */
  private static boolean isIpv4Mapped(byte[] v6) {
    for (int i = 0; i < 10; i++) {
      if (v6[i] != 0) {
        return false;
      }
    }
    return v6[10] == (byte) 0xFF && v6[11] == (byte) 0xFF;
  }
}
