package io.playline.node.edge;

import io.netty.util.NetUtil;
import io.playline.core.config.ConfigException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The peers whose PROXY protocol headers are believed ({@code proxy.trusted.cidrs}): address
 * ranges written as literals ({@code 10.0.0.0/8}, {@code fd00::/8}, a bare address is one host).
 * Parsing and matching never resolve a name. Immutable; thread-safe.
 */
public final class TrustedProxies {
  /** The private and loopback ranges, where load balancers live. */
  public static final String PRIVATE_RANGES = "127.0.0.0/8,10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,::1/128,fc00::/7";

  private final List<byte[]> networks;
  private final int[] prefixes;
  private final String text;

  private TrustedProxies(List<byte[]> networks, int[] prefixes, String text) {
    this.networks = networks;
    this.prefixes = prefixes;
    this.text = text;
  }

  /** Parses a comma-separated list of {@code address[/prefix]} literals. @throws ConfigException naming the bad entry */
  public static TrustedProxies parse(String list) {
    List<byte[]> networks = new ArrayList<>();
    List<Integer> prefixes = new ArrayList<>();
    for (String entry : list.split(",")) {
      String e = entry.trim();
      if (e.isEmpty()) {
        continue;
      }
      int slash = e.indexOf('/');
      byte[] address = NetUtil.createByteArrayFromIpAddressString(slash < 0 ? e : e.substring(0, slash));
      int prefix;
      try {
        prefix = slash < 0 ? (address == null ? 0 : address.length * 8) : Integer.parseInt(e.substring(slash + 1));
      } catch (NumberFormatException x) {
        prefix = -1;
      }
      if (address == null || prefix < 0 || prefix > address.length * 8) {
        throw new ConfigException("proxy.trusted.cidrs: '" + e + "' (expected: address literals with an optional "
            + "prefix length, e.g. 10.0.0.0/8,fd00::/8; host names are not resolved)");
      }
      networks.add(address);
      prefixes.add(prefix);
    }
    if (networks.isEmpty()) {
      throw new ConfigException("proxy.trusted.cidrs: empty (expected: the load balancers' address ranges)");
    }
    return new TrustedProxies(List.copyOf(networks), prefixes.stream().mapToInt(Integer::intValue).toArray(),
        list.trim());
  }

  /** Whether {@code peer} (a socket's remote address) lies in one of the ranges. */
  public boolean trusts(@Nullable SocketAddress peer) {
    if (!(peer instanceof InetSocketAddress isa) || isa.getAddress() == null) {
      return false;
    }
    byte[] address = isa.getAddress().getAddress();
    for (int i = 0; i < networks.size(); i++) {
      if (matches(networks.get(i), prefixes[i], address)) {
        return true;
      }
    }
    return false;
  }

  private static boolean matches(byte[] network, int prefix, byte[] address) {
    if (network.length != address.length) {
      return false;
    }
    int full = prefix / 8;
    for (int b = 0; b < full; b++) {
      if (network[b] != address[b]) {
        return false;
      }
    }
    int rest = prefix % 8;
    if (rest == 0) {
      return true;
    }
    int mask = (0xFF << (8 - rest)) & 0xFF;
    return (network[full] & mask) == (address[full] & mask);
  }

  @Override
  public String toString() {
    return text;
  }
}
