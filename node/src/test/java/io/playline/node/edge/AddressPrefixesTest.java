package io.playline.node.edge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.playline.core.config.ConfigException;
import io.playline.core.config.ConfigSource;
import java.net.InetAddress;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What makes "one address": IPv4 by /32 and IPv6 by /64 unless configured, IPv4-mapped IPv6 as IPv4. */
class AddressPrefixesTest {
  private static InetAddress ip(String literal) throws Exception {
    return InetAddress.getByName(literal);
  }

  @Test
  void theDefaultKeysIpv6BySlash64AndIpv4ByTheWholeAddress() throws Exception {
    AddressPrefixes p = AddressPrefixes.DEFAULT;
    assertThat(p.key(ip("2001:db8:1:2::a"))).isEqualTo(ip("2001:db8:1:2::"));
    assertThat(p.key(ip("2001:db8:1:2:ffff:ffff:ffff:fffe"))).isEqualTo(ip("2001:db8:1:2::"));
    assertThat(p.key(ip("2001:db8:1:3::a"))).isEqualTo(ip("2001:db8:1:3::"));
    assertThat(p.key(ip("198.51.100.7"))).isEqualTo(ip("198.51.100.7"));
    assertThat(p.key(ip("::1"))).isEqualTo(ip("::"));
  }

  @Test
  void anIpv4MappedAddressCountsAsItsIpv4Address() throws Exception {
    byte[] mapped = new byte[16];
    mapped[10] = (byte) 0xFF;
    mapped[11] = (byte) 0xFF;
    mapped[12] = (byte) 198;
    mapped[13] = 51;
    mapped[14] = 100;
    mapped[15] = 7;
    java.net.Inet6Address v6 = java.net.Inet6Address.getByAddress(null, mapped, null);
    assertThat(AddressPrefixes.DEFAULT.key(v6)).isEqualTo(ip("198.51.100.7"));
  }

  @Test
  void prefixesAreConfigurableWithinTheirRanges() throws Exception {
    AddressPrefixes p = AddressPrefixes.from(ConfigSource.load(null,
        Map.of("connection.address.prefix.ipv4", "24", "connection.address.prefix.ipv6", "56")));
    assertThat(p.key(ip("198.51.100.7"))).isEqualTo(ip("198.51.100.0"));
    assertThat(p.key(ip("2001:db8:1:2ff::1"))).isEqualTo(ip("2001:db8:1:200::"));
    assertThatThrownBy(() -> AddressPrefixes.from(ConfigSource.load(null, Map.of("connection.address.prefix.ipv6",
        "129")))).isInstanceOf(ConfigException.class).hasMessageContaining("connection.address.prefix.ipv6");
  }
}
