#include "pkg/dra/cel/net.h"

#include <algorithm>
#include <cstdio>
#include <optional>

#include "pkg/dra/cel/goquote.h"

namespace ks::cel {
namespace {

// A netip parse failure: the message and the rest of the input it was found at (may be empty).
struct ParseFailure {
  std::string message;
  std::string_view at;
};

std::string addrError(std::string_view in, const ParseFailure& f) {
  std::string out = "ParseAddr(" + goQuote(in) + "): " + f.message;
  if (!f.at.empty()) out += " (at " + goQuote(f.at) + ")";
  return out;
}

// Go's parseIPv4Fields: four decimal octets, no leading zeros.
std::optional<ParseFailure> parseIPv4Fields(std::string_view s, uint8_t* fields) {
  int val = 0, pos = 0, digits = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c >= '0' && c <= '9') {
      if (digits == 1 && val == 0) return ParseFailure{"IPv4 field has octet with leading zero", {}};
      val = val * 10 + (c - '0');
      ++digits;
      if (val > 255) return ParseFailure{"IPv4 field has value >255", {}};
    } else if (c == '.') {
      if (i == 0 || i == s.size() - 1 || s[i - 1] == '.')
        return ParseFailure{"IPv4 field must have at least one digit", s.substr(i)};
      if (pos == 3) return ParseFailure{"IPv4 address too long", {}};
      fields[pos++] = static_cast<uint8_t>(val);
      val = 0;
      digits = 0;
    } else {
      return ParseFailure{"unexpected character", s.substr(i)};
    }
  }
  if (pos < 3) return ParseFailure{"IPv4 address too short", {}};
  fields[3] = static_cast<uint8_t>(val);
  return std::nullopt;
}

int hexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Go's parseIPv6. `zone` receives what follows '%'.
std::optional<ParseFailure> parseIPv6(std::string_view in, IPAddress& ip, std::string_view& zone) {
  std::string_view s = in;
  if (const size_t pct = s.find('%'); pct != std::string_view::npos) {
    zone = s.substr(pct + 1);
    s = s.substr(0, pct);
    if (zone.empty()) return ParseFailure{"zone must be a non-empty string", {}};
  }
  int ellipsis = -1;
  if (s.size() >= 2 && s[0] == ':' && s[1] == ':') {
    ellipsis = 0;
    s.remove_prefix(2);
    if (s.empty()) return std::nullopt;
  }
  int i = 0;
  while (i < 16) {
    size_t off = 0;
    uint32_t acc = 0;
    for (; off < s.size(); ++off) {
      const int h = hexDigit(s[off]);
      if (h < 0) break;
      acc = (acc << 4) + static_cast<uint32_t>(h);
      if (off > 3) return ParseFailure{"each group must have 4 or less digits", s};
      if (acc > 0xFFFF) return ParseFailure{"IPv6 field has value >=2^16", s};
    }
    if (off == 0) return ParseFailure{"each colon-separated field must have at least one digit", s};
    if (off < s.size() && s[off] == '.') {
      if (ellipsis < 0 && i != 12)
        return ParseFailure{"embedded IPv4 address must replace the final 2 fields of the address", s};
      if (i + 4 > 16)
        return ParseFailure{"too many hex fields to fit an embedded IPv4 at the end of the address", s};
      if (auto f = parseIPv4Fields(s, &ip.bytes[static_cast<size_t>(i)])) return f;
      s = {};
      i += 4;
      break;
    }
    ip.bytes[static_cast<size_t>(i)] = static_cast<uint8_t>(acc >> 8);
    ip.bytes[static_cast<size_t>(i) + 1] = static_cast<uint8_t>(acc);
    i += 2;
    s.remove_prefix(off);
    if (s.empty()) break;
    if (s[0] != ':') return ParseFailure{"unexpected character, want colon", s};
    if (s.size() == 1) return ParseFailure{"colon must be followed by more characters", s};
    s.remove_prefix(1);
    if (s[0] == ':') {
      if (ellipsis >= 0) return ParseFailure{"multiple :: in address", s};
      ellipsis = i;
      s.remove_prefix(1);
      if (s.empty()) break;
    }
  }
  if (!s.empty()) return ParseFailure{"trailing garbage after address", s};
  if (i < 16) {
    if (ellipsis < 0) return ParseFailure{"address string too short", {}};
    const int n = 16 - i;
    for (int j = i - 1; j >= ellipsis; --j)
      ip.bytes[static_cast<size_t>(j + n)] = ip.bytes[static_cast<size_t>(j)];
    for (int j = ellipsis; j < ellipsis + n; ++j) ip.bytes[static_cast<size_t>(j)] = 0;
  } else if (ellipsis >= 0) {
    return ParseFailure{"the :: must expand to at least one field of zeros", {}};
  }
  return std::nullopt;
}

// Go's netip.ParseAddr; the zone (if any) in `zone`. The error is Go's text.
Result<IPAddress> parseAddr(std::string_view s, std::string_view& zone) {
  for (char c : s) {
    IPAddress ip;
    if (c == '.') {
      ip.is4 = true;
      if (auto f = parseIPv4Fields(s, ip.bytes.data())) return Error(addrError(s, *f));
      return ip;
    }
    if (c == ':') {
      if (auto f = parseIPv6(s, ip, zone)) return Error(addrError(s, *f));
      return ip;
    }
    if (c == '%') return Error(addrError(s, {"missing IPv6 address", {}}));
  }
  return Error(addrError(s, {"unable to parse IP", {}}));
}

bool isIPv4Mapped(const IPAddress& ip) {
  if (ip.is4) return false;
  for (size_t i = 0; i < 10; ++i)
    if (ip.bytes[i] != 0) return false;
  return ip.bytes[10] == 0xFF && ip.bytes[11] == 0xFF;
}

uint16_t group(const IPAddress& ip, size_t i) {
  return static_cast<uint16_t>(ip.bytes[2 * i] << 8 | ip.bytes[2 * i + 1]);
}

// Go's strconv.Atoi for the prefix length: optional sign, decimal digits, within int.
std::optional<int64_t> atoiBits(std::string_view s) {
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return std::nullopt;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, c - '0', &v)) return std::nullopt;
  }
  return negative ? -v : v;
}

}  // namespace

std::string IPAddress::toString() const {
  if (is4) {
    return std::to_string(bytes[0]) + "." + std::to_string(bytes[1]) + "." + std::to_string(bytes[2]) + "." +
           std::to_string(bytes[3]);
  }
  // The longest run of two or more zero groups (the first of equal ones) becomes "::".
  int zeroStart = -1, zeroEnd = -1;
  for (int i = 0; i < 8; ++i) {
    int j = i;
    while (j < 8 && group(*this, static_cast<size_t>(j)) == 0) ++j;
    if (j - i >= 2 && j - i > zeroEnd - zeroStart) zeroStart = i, zeroEnd = j;
  }
  std::string out;
  char buf[8];
  for (int i = 0; i < 8; ++i) {
    if (i == zeroStart) {
      out += "::";
      i = zeroEnd;
      if (i >= 8) break;
    } else if (i > 0) {
      out += ':';
    }
    std::snprintf(buf, sizeof buf, "%x", group(*this, static_cast<size_t>(i)));
    out += buf;
  }
  return out;
}

bool IPAddress::isUnspecified() const {
  const size_t n = is4 ? 4 : 16;
  for (size_t i = 0; i < n; ++i)
    if (bytes[i] != 0) return false;
  return true;
}

bool IPAddress::isLoopback() const {
  if (is4) return bytes[0] == 127;
  for (size_t i = 0; i < 15; ++i)
    if (bytes[i] != 0) return false;
  return bytes[15] == 1;
}

bool IPAddress::isMulticast() const {
  return is4 ? (bytes[0] & 0xF0) == 0xE0 : bytes[0] == 0xFF;
}

bool IPAddress::isLinkLocalMulticast() const {
  if (is4) return bytes[0] == 224 && bytes[1] == 0 && bytes[2] == 0;
  return (group(*this, 0) & 0xFF0F) == 0xFF02;
}

bool IPAddress::isLinkLocalUnicast() const {
  if (is4) return bytes[0] == 169 && bytes[1] == 254;
  return (group(*this, 0) & 0xFFC0) == 0xFE80;
}

bool IPAddress::isGlobalUnicast() const {
  if (is4 && (isUnspecified() || (bytes[0] == 255 && bytes[1] == 255 && bytes[2] == 255 && bytes[3] == 255)))
    return false;
  return !(!is4 && isUnspecified()) && !isLoopback() && !isMulticast() && !isLinkLocalUnicast();
}

IPAddress IPAddress::masked(int bits) const {
  IPAddress out = *this;
  for (int i = 0; i < bitLength() / 8; ++i) {
    const int keep = std::min(8, std::max(0, bits - 8 * i));
    out.bytes[static_cast<size_t>(i)] &= static_cast<uint8_t>(0xFF00 >> keep);
  }
  return out;
}

std::string IPPrefix::toString() const {
  return address.toString() + "/" + std::to_string(bits);
}

bool IPPrefix::contains(const IPAddress& ip) const {
  return ip.is4 == address.is4 && ip.masked(bits) == address.masked(bits);
}

bool IPPrefix::overlaps(const IPPrefix& o) const {
  if (*this == o) return true;
  if (address.is4 != o.address.is4) return false;
  const int minBits = std::min(bits, o.bits);
  return minBits == 0 || address.masked(minBits) == o.address.masked(minBits);
}

Result<IPAddress> parseNetipAddr(std::string_view text) {
  std::string_view zone;
  return parseAddr(text, zone);
}

Result<IPAddress> parseIP(std::string_view raw) {
  std::string_view zone;
  auto ip = parseAddr(raw, zone);
  if (!ip.ok())
    return Error("IP Address " + goQuote(raw) +
                 " parse error during conversion from string: " + ip.error().message());
  if (!zone.empty()) return Error("IP address " + goQuote(raw) + " with zone value is not allowed");
  if (isIPv4Mapped(*ip)) return Error("IPv4-mapped IPv6 address " + goQuote(raw) + " is not allowed");
  return ip;
}

Result<IPPrefix> parseCIDR(std::string_view raw) {
  const std::string context =
      "network address parse error during conversion from string: netip.ParsePrefix(" + goQuote(raw) + "): ";
  const size_t slash = raw.rfind('/');
  if (slash == std::string_view::npos) return Error(context + "no '/'");
  std::string_view zone;
  auto ip = parseAddr(raw.substr(0, slash), zone);
  if (!ip.ok()) return Error(context + ip.error().message());
  if (!zone.empty()) return Error(context + "IPv6 zones cannot be present in a prefix");
  const std::string_view bitsText = raw.substr(slash + 1);
  const auto badBits = Error(context + "bad bits after slash: " + goQuote(bitsText));
  if (bitsText.size() > 1 && (bitsText[0] < '1' || bitsText[0] > '9')) return badBits;
  auto bits = atoiBits(bitsText);
  if (!bits) return badBits;
  if (*bits < 0 || *bits > ip->bitLength()) return Error(context + "prefix length out of range");
  if (isIPv4Mapped(*ip)) return Error("IPv4-mapped IPv6 address " + goQuote(raw) + " is not allowed");
  return IPPrefix{*ip, static_cast<int>(*bits)};
}

}  // namespace ks::cel
