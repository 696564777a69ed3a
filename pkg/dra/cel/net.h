#pragma once
// IP addresses and prefixes as Go's net/netip parses, compares and prints them, with the restrictions
// Kubernetes' CEL ip() and cidr() add (no zones, no IPv4-mapped IPv6 addresses).

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "pkg/util/result.h"

namespace ks::cel {

struct IPAddress {
  std::array<uint8_t, 16> bytes{};  // IPv4 in the first four
  bool is4 = false;

  int bitLength() const { return is4 ? 32 : 128; }
  bool operator==(const IPAddress&) const = default;
  std::string toString() const;  // Go's Addr.String()

  bool isUnspecified() const;
  bool isLoopback() const;
  bool isMulticast() const;
  bool isLinkLocalMulticast() const;
  bool isLinkLocalUnicast() const;
  bool isGlobalUnicast() const;
  // The address with all bits past the first `bits` cleared.
  IPAddress masked(int bits) const;
};

struct IPPrefix {
  IPAddress address;  // as written, not masked
  int bits = 0;

  bool operator==(const IPPrefix&) const = default;
  std::string toString() const;  // Go's Prefix.String()
  bool contains(const IPAddress& ip) const;
  bool overlaps(const IPPrefix& other) const;
};

// Go's netip.ParseAddr (a zone is accepted and dropped), with netip's error text.
Result<IPAddress> parseNetipAddr(std::string_view text);
// Kubernetes' parseIPAddr (netip.ParseAddr, then no zone and no IPv4-mapped IPv6), with its errors.
Result<IPAddress> parseIP(std::string_view text);
// Kubernetes' parseCIDR (netip.ParsePrefix, then no IPv4-mapped IPv6), with its error (which cidr()
// prefixes once more).
Result<IPPrefix> parseCIDR(std::string_view text);

}  // namespace ks::cel
