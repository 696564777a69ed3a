// Kubernetes' CEL libraries for IP addresses and CIDR prefixes (k8s.io/apiserver/pkg/cel/library ip.go
// and cidr.go), on net.h's netip rules.

#include "pkg/dra/cel/libraries.h"
#include "pkg/dra/cel/net.h"

namespace ks::cel {
namespace {

using Args = std::span<const Value>;

Value stringToIP(const Value& s) {
  auto ip = parseIP(s.text());
  return ip.ok() ? Value::ip(*ip) : Value::error(ip.error().message());
}

Value stringToCIDR(const Value& s) {
  auto cidr = parseCIDR(s.text());
  if (!cidr.ok())
    return Value::error("network address parse error during conversion from string: " +
                        cidr.error().message());
  return Value::cidr(*cidr);
}

Value ipFn(Args a) {
  if (a[0].kind() == Value::Kind::CIDR) return Value::ip(a[0].asCIDR().address);
  return stringToIP(a[0]);
}
Value cidrFn(Args a) {
  return stringToCIDR(a[0]);
}
Value isIPFn(Args a) {
  return Value::boolean(parseIP(a[0].text()).ok());
}
Value isCIDRFn(Args a) {
  return Value::boolean(parseCIDR(a[0].text()).ok());
}
Value ipIsCanonical(Args a) {
  auto ip = parseIP(a[0].text());
  if (!ip.ok()) return Value::error(ip.error().message());
  return Value::boolean(ip->toString() == a[0].text());
}
Value netToString(Args a) {
  return Value::string(a[0].kind() == Value::Kind::IP ? a[0].asIP().toString() : a[0].asCIDR().toString());
}
Value family(Args a) {
  return Value::integer(a[0].asIP().is4 ? 4 : 6);
}
Value isUnspecified(Args a) {
  return Value::boolean(a[0].asIP().isUnspecified());
}
Value isLoopback(Args a) {
  return Value::boolean(a[0].asIP().isLoopback());
}
Value isLinkLocalMulticast(Args a) {
  return Value::boolean(a[0].asIP().isLinkLocalMulticast());
}
Value isLinkLocalUnicast(Args a) {
  return Value::boolean(a[0].asIP().isLinkLocalUnicast());
}
Value isGlobalUnicast(Args a) {
  return Value::boolean(a[0].asIP().isGlobalUnicast());
}

Value containsIP(Args a) {
  if (a[1].kind() == Value::Kind::IP) return Value::boolean(a[0].asCIDR().contains(a[1].asIP()));
  // A string that is not an IP: upstream reports no such overload (not the parse error).
  auto ip = parseIP(a[1].text());
  if (!ip.ok()) return Value::error(kNoSuchOverload);
  return Value::boolean(a[0].asCIDR().contains(*ip));
}

Value containsCIDR(Args a) {
  const Value other = a[1].kind() == Value::Kind::CIDR ? a[1] : stringToCIDR(a[1]);
  if (other.isError()) return other;
  const IPPrefix& outer = a[0].asCIDR();
  const IPPrefix& inner = other.asCIDR();
  return Value::boolean(outer.overlaps(inner) && outer.bits <= inner.bits);
}

Value prefixLength(Args a) {
  return Value::integer(a[0].asCIDR().bits);
}
Value masked(Args a) {
  const IPPrefix& p = a[0].asCIDR();
  return Value::cidr(IPPrefix{p.address.masked(p.bits), p.bits});
}

}  // namespace

void defineNetLibrary(FunctionRegistry& r) {
  constexpr bool G = false, M = true;
  r.define("ip", "string_to_ip", G, {"string"}, "net.IP", ipFn);
  r.define("ip", "cidr_ip", M, {"net.CIDR"}, "net.IP", ipFn);
  r.define("isIP", "is_ip", G, {"string"}, "bool", isIPFn);
  r.define("ip.isCanonical", "ip_is_canonical", G, {"string"}, "bool", ipIsCanonical);
  r.define("family", "ip_family", M, {"net.IP"}, "int", family);
  r.define("isUnspecified", "ip_is_unspecified", M, {"net.IP"}, "bool", isUnspecified);
  r.define("isLoopback", "ip_is_loopback", M, {"net.IP"}, "bool", isLoopback);
  r.define("isLinkLocalMulticast", "ip_is_link_local_multicast", M, {"net.IP"}, "bool", isLinkLocalMulticast);
  r.define("isLinkLocalUnicast", "ip_is_link_local_unicast", M, {"net.IP"}, "bool", isLinkLocalUnicast);
  r.define("isGlobalUnicast", "ip_is_global_unicast", M, {"net.IP"}, "bool", isGlobalUnicast);
  r.define("string", "ip_to_string", G, {"net.IP"}, "string", netToString);

  r.define("cidr", "string_to_cidr", G, {"string"}, "net.CIDR", cidrFn);
  r.define("isCIDR", "is_cidr", G, {"string"}, "bool", isCIDRFn);
  r.define("containsIP", "cidr_contains_ip_string", M, {"net.CIDR", "string"}, "bool", containsIP);
  r.define("containsIP", "cidr_contains_ip_ip", M, {"net.CIDR", "net.IP"}, "bool", containsIP);
  r.define("containsCIDR", "cidr_contains_cidr_string", M, {"net.CIDR", "string"}, "bool", containsCIDR);
  r.define("containsCIDR", "cidr_contains_cidr", M, {"net.CIDR", "net.CIDR"}, "bool", containsCIDR);
  r.define("prefixLength", "cidr_prefix_length", M, {"net.CIDR"}, "int", prefixLength);
  r.define("masked", "cidr_masked", M, {"net.CIDR"}, "net.CIDR", masked);
  r.define("string", "cidr_to_string", G, {"net.CIDR"}, "string", netToString);
}

}  // namespace ks::cel
