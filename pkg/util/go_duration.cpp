#include "pkg/util/go_duration.h"

#include <cstdint>

#include "pkg/util/strings.h"

namespace ks {
namespace {

Error invalid(std::string_view orig) {
  return Error("time: invalid duration " + quote(orig));
}

int64_t unitNanos(std::string_view u) {
  if (u == "ns") return 1;
  if (u == "us" || u == "\xc2\xb5s" || u == "\xce\xbcs") return 1000;
  if (u == "ms") return 1000000;
  if (u == "s") return 1000000000;
  if (u == "m") return int64_t{60} * 1000000000;
  if (u == "h") return int64_t{3600} * 1000000000;
  return 0;
}

// Go's fmtFrac: writes the fraction of v/10^prec (trailing zeros dropped, no '.' if zero) and returns
// v/10^prec.
uint64_t fmtFrac(std::string& out, uint64_t v, int prec) {
  std::string digits;
  bool print = false;
  for (int i = 0; i < prec; i++) {
    uint64_t digit = v % 10;
    print = print || digit != 0;
    if (print) digits.insert(digits.begin(), static_cast<char>('0' + digit));
    v /= 10;
  }
  if (print) out.insert(0, "." + digits);
  return v;
}

void fmtInt(std::string& out, uint64_t v) {
  out.insert(0, std::to_string(v));
}

}  // namespace

Result<std::chrono::nanoseconds> parseGoDuration(std::string_view orig) {
  std::string_view s = orig;
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return std::chrono::nanoseconds(0);
  if (s.empty()) return invalid(orig);
  const uint64_t limit = uint64_t{1} << 63;
  uint64_t total = 0;
  while (!s.empty()) {
    if (!(s[0] == '.' || (s[0] >= '0' && s[0] <= '9'))) return invalid(orig);
    uint64_t v = 0;
    size_t i = 0;
    for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; i++) {
      if (v > (limit - 1) / 10) return invalid(orig);
      v = v * 10 + static_cast<uint64_t>(s[i] - '0');
      if (v > limit) return invalid(orig);
    }
    bool pre = i > 0;
    s.remove_prefix(i);
    uint64_t f = 0;
    double scale = 1;
    bool post = false;
    if (!s.empty() && s[0] == '.') {
      s.remove_prefix(1);
      size_t j = 0;
      bool overflow = false;
      for (; j < s.size() && s[j] >= '0' && s[j] <= '9'; j++) {
        // Go's leadingFraction: digits past what fits are ignored.
        if (overflow) continue;
        if (f > (limit - 1) / 10) {
          overflow = true;
          continue;
        }
        const uint64_t y = f * 10 + static_cast<uint64_t>(s[j] - '0');
        if (y > limit) {
          overflow = true;
          continue;
        }
        f = y;
        scale *= 10;
      }
      post = j > 0;
      s.remove_prefix(j);
    }
    if (!pre && !post) return invalid(orig);
    size_t u = 0;
    while (u < s.size() && s[u] != '.' && !(s[u] >= '0' && s[u] <= '9')) u++;
    if (u == 0) return Error("time: missing unit in duration " + quote(orig));
    std::string_view unitText = s.substr(0, u);
    int64_t unit = unitNanos(unitText);
    if (unit == 0) return Error("time: unknown unit " + quote(unitText) + " in duration " + quote(orig));
    s.remove_prefix(u);
    const uint64_t uu = static_cast<uint64_t>(unit);
    if (v > limit / uu) return invalid(orig);
    v *= uu;
    if (f > 0) {
      v += static_cast<uint64_t>(static_cast<double>(f) * (static_cast<double>(uu) / scale));
      if (v > limit) return invalid(orig);
    }
    total += v;
    if (total > limit) return invalid(orig);
  }
  if (neg) return std::chrono::nanoseconds(-static_cast<int64_t>(total - 1) - 1);
  if (total > limit - 1) return invalid(orig);
  return std::chrono::nanoseconds(static_cast<int64_t>(total));
}

std::string formatGoDuration(std::chrono::nanoseconds d) {
  const int64_t n = d.count();
  const bool neg = n < 0;
  uint64_t u = neg ? (~static_cast<uint64_t>(n) + 1) : static_cast<uint64_t>(n);
  std::string out;
  if (u < 1000000000ULL) {
    if (u == 0) return "0s";
    int prec = 0;
    std::string unit;
    if (u < 1000ULL) {
      unit = "ns";
    } else if (u < 1000000ULL) {
      prec = 3;
      unit = "\xc2\xb5s";
    } else {
      prec = 6;
      unit = "ms";
    }
    out = unit;
    u = fmtFrac(out, u, prec);
    fmtInt(out, u);
  } else {
    out = "s";
    u = fmtFrac(out, u, 9);
    fmtInt(out, u % 60);
    u /= 60;
    if (u > 0) {
      out.insert(0, "m");
      fmtInt(out, u % 60);
      u /= 60;
      if (u > 0) {
        out.insert(0, "h");
        fmtInt(out, u);
      }
    }
  }
  if (neg) out.insert(0, "-");
  return out;
}

}  // namespace ks
