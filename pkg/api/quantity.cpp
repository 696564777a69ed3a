// resource.Quantity, ported from k8s.io/apimachinery/pkg/api/resource (quantity.go, amount.go,
// math.go, suffix.go, scale_int.go).
//
// Representation: the number is M * 10^scale_, where M is mantissa_ when big_ is empty and otherwise
// the signed decimal integer held in big_ (only used when M does not fit an int64, the case where
// upstream switches to inf.Dec). Values that fit take int64 fast paths that allocate nothing; the rest
// goes through a small exact decimal (Dec, below).
//
// Deliberate differences from upstream, all on inputs the scheduler never produces:
//  - String() is always the canonical form; upstream caches the original text when the input was
//    "already canonical", which also keeps accepted oddities such as "+1", "01", "1E3" verbatim.
//  - Value()/MilliValue()/ScaledValue() saturate at the int64 limits and round away from zero for every
//    value; upstream's inf.Dec path wraps around on overflow and rounds negative fractions towards +inf.
//  - Decimal exponents outside int32 are rejected with ErrSuffix, and DecimalSI/BinarySI values without
//    a suffix for their exponent fall back to exponent notation, as upstream master does (v1.34 truncated
//    the exponent, and printed e.g. 10^21 DecimalSI as "1").
//  - add()/sub() of two operands whose exact sum needs more than kMaxAlignDigits digits of alignment
//    (e.g. 1e1000000 + 1) keep the operand of larger magnitude; upstream would allocate every digit.

#include "pkg/api/quantity.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <vector>

namespace ks::api {

namespace {

constexpr std::string_view kErrFormatWrong =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
constexpr std::string_view kErrSuffix = "unable to parse quantity's suffix";

constexpr int64_t kMostPositive = std::numeric_limits<int64_t>::max();
constexpr int64_t kMostNegative = std::numeric_limits<int64_t>::min();
constexpr int32_t kNano = -9;
constexpr int64_t kMaxAlignDigits = 4096;

// ---------------------------------------------------------------------------------------------
// Unsigned big integer in base 10^9 (little-endian limbs, no leading zero limbs; empty == 0).

constexpr uint32_t kLimbBase = 1000000000U;
constexpr std::array<uint32_t, 10> kPow10 = {1U,      10U,      100U,      1000U,      10000U,
                                             100000U, 1000000U, 10000000U, 100000000U, 1000000000U};

struct BigU {
  std::vector<uint32_t> limbs;

  static BigU fromU64(uint64_t v) {
    BigU b;
    while (v != 0) {
      b.limbs.push_back(static_cast<uint32_t>(v % kLimbBase));
      v /= kLimbBase;
    }
    return b;
  }

  // `digits` holds only '0'..'9' (possibly empty or with leading zeros).
  static BigU fromDigits(std::string_view digits) {
    BigU b;
    size_t end = digits.size();
    while (end > 0) {
      size_t start = end >= 9 ? end - 9 : 0;
      uint32_t limb = 0;
      for (size_t i = start; i < end; ++i) limb = limb * 10 + static_cast<uint32_t>(digits[i] - '0');
      b.limbs.push_back(limb);
      end = start;
    }
    b.trim();
    return b;
  }

  bool isZero() const { return limbs.empty(); }

  void trim() {
    while (!limbs.empty() && limbs.back() == 0) limbs.pop_back();
  }

  void mulSmall(uint32_t m) {
    uint64_t carry = 0;
    for (auto& limb : limbs) {
      uint64_t cur = static_cast<uint64_t>(limb) * m + carry;
      limb = static_cast<uint32_t>(cur % kLimbBase);
      carry = cur / kLimbBase;
    }
    while (carry != 0) {
      limbs.push_back(static_cast<uint32_t>(carry % kLimbBase));
      carry /= kLimbBase;
    }
    trim();
  }

  void addSmall(uint32_t a) {
    uint64_t carry = a;
    for (size_t i = 0; carry != 0; ++i) {
      if (i == limbs.size()) limbs.push_back(0);
      uint64_t cur = limbs[i] + carry;
      limbs[i] = static_cast<uint32_t>(cur % kLimbBase);
      carry = cur / kLimbBase;
    }
  }

  // Divides in place by d (> 0) and returns the remainder.
  uint32_t divSmall(uint32_t d) {
    uint64_t rem = 0;
    for (size_t i = limbs.size(); i-- > 0;) {
      uint64_t cur = rem * kLimbBase + limbs[i];
      limbs[i] = static_cast<uint32_t>(cur / d);
      rem = cur % d;
    }
    trim();
    return static_cast<uint32_t>(rem);
  }

  void add(const BigU& o) {
    if (limbs.size() < o.limbs.size()) limbs.resize(o.limbs.size(), 0);
    uint32_t carry = 0;
    for (size_t i = 0; i < limbs.size(); ++i) {
      uint32_t cur = limbs[i] + carry + (i < o.limbs.size() ? o.limbs[i] : 0);
      carry = cur >= kLimbBase ? 1 : 0;
      limbs[i] = cur - carry * kLimbBase;
      if (carry == 0 && i >= o.limbs.size()) break;
    }
    if (carry != 0) limbs.push_back(carry);
  }

  // *this -= o; requires *this >= o.
  void sub(const BigU& o) {
    int64_t borrow = 0;
    for (size_t i = 0; i < limbs.size(); ++i) {
      int64_t cur = static_cast<int64_t>(limbs[i]) - borrow - (i < o.limbs.size() ? o.limbs[i] : 0);
      borrow = cur < 0 ? 1 : 0;
      limbs[i] = static_cast<uint32_t>(cur + borrow * kLimbBase);
      if (borrow == 0 && i >= o.limbs.size()) break;
    }
    trim();
  }

  static int cmp(const BigU& a, const BigU& b) {
    if (a.limbs.size() != b.limbs.size()) return a.limbs.size() < b.limbs.size() ? -1 : 1;
    for (size_t i = a.limbs.size(); i-- > 0;) {
      if (a.limbs[i] != b.limbs[i]) return a.limbs[i] < b.limbs[i] ? -1 : 1;
    }
    return 0;
  }

  int64_t digits() const {
    if (limbs.empty()) return 0;
    int64_t n = static_cast<int64_t>(limbs.size() - 1) * 9;
    uint32_t top = limbs.back();
    while (top != 0) {
      ++n;
      top /= 10;
    }
    return n;
  }

  // Multiplies by 10^k (k >= 0; the caller bounds k).
  void mulPow10(int64_t k) {
    if (isZero() || k <= 0) return;
    limbs.insert(limbs.begin(), static_cast<size_t>(k / 9), 0U);
    if (k % 9 != 0) mulSmall(kPow10[static_cast<size_t>(k % 9)]);
  }

  // Divides by 10^k truncating; returns true when the remainder was non-zero.
  bool divPow10(int64_t k) {
    if (k <= 0 || isZero()) return false;
    if (k >= digits()) {
      limbs.clear();
      return true;
    }
    bool rem = false;
    size_t drop = static_cast<size_t>(k / 9);
    for (size_t i = 0; i < drop; ++i) rem = rem || limbs[i] != 0;
    limbs.erase(limbs.begin(), limbs.begin() + static_cast<std::ptrdiff_t>(drop));
    if (k % 9 != 0) rem = divSmall(kPow10[static_cast<size_t>(k % 9)]) != 0 || rem;
    trim();
    return rem;
  }

  int64_t trailingZeros() const {
    int64_t n = 0;
    for (uint32_t limb : limbs) {
      if (limb == 0) {
        n += 9;
        continue;
      }
      while (limb % 10 == 0) {
        ++n;
        limb /= 10;
      }
      break;
    }
    return n;
  }

  // True (and *out set) when the value is at most `max`.
  bool toU64(uint64_t max, uint64_t* out) const {
    if (limbs.size() > 3) return false;
    uint64_t v = 0;
    for (size_t i = limbs.size(); i-- > 0;) {
      if (__builtin_mul_overflow(v, static_cast<uint64_t>(kLimbBase), &v)) return false;
      if (__builtin_add_overflow(v, static_cast<uint64_t>(limbs[i]), &v)) return false;
    }
    if (v > max) return false;
    *out = v;
    return true;
  }

  void appendTo(std::string& out) const {
    if (limbs.empty()) {
      out += '0';
      return;
    }
    out += std::to_string(limbs.back());
    for (size_t i = limbs.size() - 1; i-- > 0;) {
      std::string part = std::to_string(limbs[i]);
      out.append(9 - part.size(), '0');
      out += part;
    }
  }
};

// An exact decimal: (-1)^neg * mag * 10^exp.
struct Dec {
  bool neg = false;
  BigU mag;
  int64_t exp = 0;

  bool isZero() const { return mag.isZero(); }
  int sign() const { return mag.isZero() ? 0 : (neg ? -1 : 1); }
};

int cmpAbs(const Dec& a, const Dec& b) {
  if (a.isZero() || b.isZero()) return a.isZero() ? (b.isZero() ? 0 : -1) : 1;
  // Position of the leading digit decides unless equal; then the exponents differ by at most the
  // digit count and aligning is cheap.
  int64_t oa = a.mag.digits() + a.exp;
  int64_t ob = b.mag.digits() + b.exp;
  if (oa != ob) return oa < ob ? -1 : 1;
  if (a.exp == b.exp) return BigU::cmp(a.mag, b.mag);
  if (a.exp > b.exp) {
    BigU t = a.mag;
    t.mulPow10(a.exp - b.exp);
    return BigU::cmp(t, b.mag);
  }
  BigU t = b.mag;
  t.mulPow10(b.exp - a.exp);
  return BigU::cmp(a.mag, t);
}

int cmpDec(const Dec& a, const Dec& b) {
  int sa = a.sign();
  int sb = b.sign();
  if (sa != sb) return sa < sb ? -1 : 1;
  if (sa == 0) return 0;
  int c = cmpAbs(a, b);
  return sa > 0 ? c : -c;
}

Dec addDec(Dec a, Dec b) {
  if (b.isZero()) return a;
  if (a.isZero()) return b;
  int64_t diff = a.exp > b.exp ? a.exp - b.exp : b.exp - a.exp;
  if (diff > kMaxAlignDigits) {
    // Documented limit: the smaller operand is negligible at any representable precision we keep.
    return cmpAbs(a, b) >= 0 ? a : b;
  }
  if (a.exp > b.exp) {
    a.mag.mulPow10(diff);
    a.exp = b.exp;
  } else if (b.exp > a.exp) {
    b.mag.mulPow10(diff);
    b.exp = a.exp;
  }
  if (a.neg == b.neg) {
    a.mag.add(b.mag);
    return a;
  }
  int c = BigU::cmp(a.mag, b.mag);
  if (c == 0) return Dec{};
  if (c > 0) {
    a.mag.sub(b.mag);
    return a;
  }
  b.mag.sub(a.mag);
  return b;
}

// Rounds away from zero to a multiple of 10^e; returns true when that was exact.
bool roundUpToExp(Dec& d, int64_t e) {
  if (d.exp >= e || d.isZero()) return true;
  int64_t k = e - d.exp;
  bool rem = d.mag.divPow10(k);
  if (rem) d.mag.addSmall(1);
  d.exp = e;
  return !rem;
}

// ceil-away(d / 10^scale) saturated to int64.
int64_t scaledValueDec(Dec d, int64_t scale) {
  if (d.isZero()) return 0;
  roundUpToExp(d, scale);
  int64_t up = d.exp - scale;
  if (d.isZero()) return 0;
  if (up > 19) return d.neg ? kMostNegative : kMostPositive;
  d.mag.mulPow10(up);
  uint64_t v = 0;
  if (d.neg) {
    if (!d.mag.toU64(static_cast<uint64_t>(kMostPositive) + 1, &v)) return kMostNegative;
    return static_cast<int64_t>(0 - v);
  }
  if (!d.mag.toU64(static_cast<uint64_t>(kMostPositive), &v)) return kMostPositive;
  return static_cast<int64_t>(v);
}

// Canonical decimal: trailing zeros moved into the exponent, exponent lowered to a multiple of 3.
void canonicalDecimal(const Dec& d, std::string& out, int64_t* exponent) {
  BigU m = d.mag;
  int64_t e = d.exp;
  int64_t tz = m.trailingZeros();
  m.divPow10(tz);
  e += tz;
  int64_t r = ((e % 3) + 3) % 3;
  m.mulPow10(r);
  e -= r;
  if (d.neg) out += '-';
  m.appendTo(out);
  *exponent = e;
}

std::string_view decimalSuffix(int64_t exponent, bool* ok) {
  *ok = true;
  switch (exponent) {
    case -9:
      return "n";
    case -6:
      return "u";
    case -3:
      return "m";
    case 0:
      return "";
    case 3:
      return "k";
    case 6:
      return "M";
    case 9:
      return "G";
    case 12:
      return "T";
    case 15:
      return "P";
    case 18:
      return "E";
    default:
      *ok = false;
      return "";
  }
}

void appendExponentSuffix(std::string& out, int64_t exponent) {
  if (exponent == 0) return;
  out += 'e';
  out += std::to_string(exponent);
}

// ---------------------------------------------------------------------------------------------
// int64 helpers (math.go).

bool mulOverflows(int64_t a, int64_t b, int64_t* out) {
  return __builtin_mul_overflow(a, b, out);
}

// base * 10^scale (scale >= 0) or false on overflow.
bool positiveScale(int64_t base, int64_t scale, int64_t* out) {
  if (base == 0) {
    *out = 0;
    return true;
  }
  if (scale > 18) return false;
  int64_t r = base;
  for (int64_t i = 0; i < scale; ++i) {
    if (mulOverflows(r, 10, &r)) return false;
  }
  *out = r;
  return true;
}

// base / 10^scale rounded away from zero (scale > 0), as negativeScaleInt64.
int64_t negativeScale(int64_t base, int64_t scale) {
  int64_t value = base;
  bool fraction = false;
  for (int64_t i = 0; i < scale; ++i) {
    if (!fraction && value % 10 != 0) fraction = true;
    value /= 10;
    if (value == 0) {
      if (fraction) return base > 0 ? 1 : -1;
      return 0;
    }
  }
  if (fraction) value += base > 0 ? 1 : -1;
  return value;
}

}  // namespace

// Exact conversions between the stored form and Dec (file-local friends by name only).
namespace {

Dec toDec(int64_t mantissa, int32_t scale, const std::string& big) {
  Dec d;
  d.exp = scale;
  if (big.empty()) {
    d.neg = mantissa < 0;
    uint64_t mag = d.neg ? 0 - static_cast<uint64_t>(mantissa) : static_cast<uint64_t>(mantissa);
    d.mag = BigU::fromU64(mag);
  } else {
    d.neg = big[0] == '-';
    d.mag = BigU::fromDigits(std::string_view(big).substr(d.neg ? 1 : 0));
  }
  if (d.mag.isZero()) d.neg = false;
  return d;
}

void fromDec(Dec d, int64_t* mantissa, int32_t* scale, std::string* big) {
  big->clear();
  if (d.isZero()) {
    *mantissa = 0;
    *scale = 0;
    return;
  }
  uint64_t max = d.neg ? static_cast<uint64_t>(kMostPositive) + 1 : static_cast<uint64_t>(kMostPositive);
  uint64_t v = 0;
  if (!d.mag.toU64(max, &v)) {
    // Move trailing zeros into the exponent while that keeps it an int32.
    int64_t tz = std::min<int64_t>(d.mag.trailingZeros(), static_cast<int64_t>(INT32_MAX) - d.exp);
    if (tz > 0) {
      d.mag.divPow10(tz);
      d.exp += tz;
    }
  }
  d.exp = std::clamp<int64_t>(d.exp, INT32_MIN, INT32_MAX);
  *scale = static_cast<int32_t>(d.exp);
  if (d.mag.toU64(max, &v)) {
    *mantissa = d.neg ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
    return;
  }
  *mantissa = 0;
  if (d.neg) *big += '-';
  d.mag.appendTo(*big);
}

struct Suffix {
  int32_t base = 10;
  int32_t exponent = 0;
  Quantity::Format format = Quantity::Format::DecimalSI;
};

bool interpretSuffix(std::string_view s, Suffix* out) {
  using F = Quantity::Format;
  struct Entry {
    std::string_view s;
    int32_t base;
    int32_t exponent;
    F format;
  };
  static constexpr std::array<Entry, 16> kTable = {{
      {"", 10, 0, F::DecimalSI},
      {"n", 10, -9, F::DecimalSI},
      {"u", 10, -6, F::DecimalSI},
      {"m", 10, -3, F::DecimalSI},
      {"k", 10, 3, F::DecimalSI},
      {"M", 10, 6, F::DecimalSI},
      {"G", 10, 9, F::DecimalSI},
      {"T", 10, 12, F::DecimalSI},
      {"P", 10, 15, F::DecimalSI},
      {"E", 10, 18, F::DecimalSI},
      {"Ki", 2, 10, F::BinarySI},
      {"Mi", 2, 20, F::BinarySI},
      {"Gi", 2, 30, F::BinarySI},
      {"Ti", 2, 40, F::BinarySI},
      {"Pi", 2, 50, F::BinarySI},
      {"Ei", 2, 60, F::BinarySI},
  }};
  for (const auto& e : kTable) {
    if (e.s == s) {
      *out = Suffix{e.base, e.exponent, e.format};
      return true;
    }
  }
  if (s.size() > 1 && (s[0] == 'e' || s[0] == 'E')) {
    // strconv.ParseInt(s[1:], 10, 64): optional sign, then at least one digit, nothing else.
    std::string_view num = s.substr(1);
    bool negative = false;
    if (num[0] == '+' || num[0] == '-') {
      negative = num[0] == '-';
      num.remove_prefix(1);
    }
    if (num.empty()) return false;
    int64_t v = 0;
    for (char c : num) {
      if (c < '0' || c > '9') return false;
      v = v * 10 + (c - '0');
      if (v > INT32_MAX) return false;  // outside the int32 scale: rejected, as upstream master
    }
    *out = Suffix{10, static_cast<int32_t>(negative ? -v : v), F::DecimalExponent};
    return true;
  }
  return false;
}

bool isDigit(char c) {
  return c >= '0' && c <= '9';
}

bool isSuffixChar(char c) {
  return std::string_view("eEinumkKMGTP").find(c) != std::string_view::npos;
}

}  // namespace

Result<Quantity> Quantity::parse(std::string_view str) {
  if (str.empty()) return Error(std::string(kErrFormatWrong));
  if (str == "0") return Quantity{};

  // parseQuantityString.
  bool positive = true;
  size_t pos = 0;
  const size_t end = str.size();
  if (str[0] == '-') {
    positive = false;
    ++pos;
  } else if (str[0] == '+') {
    ++pos;
  }
  while (pos < end && str[pos] == '0') ++pos;
  size_t numStart = pos;
  while (pos < end && isDigit(str[pos])) ++pos;
  std::string_view num = str.substr(numStart, pos - numStart);
  std::string_view denom;
  std::string_view suffix;
  if (pos < end && str[pos] == '.') {
    ++pos;
    size_t denomStart = pos;
    while (pos < end && isDigit(str[pos])) ++pos;
    denom = str.substr(denomStart, pos - denomStart);
  }
  if (pos < end) {
    size_t suffixStart = pos;
    while (pos < end && isSuffixChar(str[pos])) ++pos;
    if (pos < end && (str[pos] == '-' || str[pos] == '+')) ++pos;
    while (pos < end && isDigit(str[pos])) ++pos;
    if (pos < end) return Error(std::string(kErrFormatWrong));
    suffix = str.substr(suffixStart);
  }

  Suffix suf;
  if (!interpretSuffix(suffix, &suf)) return Error(std::string(kErrSuffix));

  Dec d;
  d.neg = !positive;
  std::string digits;
  digits.reserve(num.size() + denom.size());
  digits.append(num);
  digits.append(denom);
  d.mag = BigU::fromDigits(digits);
  d.exp = -static_cast<int64_t>(denom.size());
  Format format = suf.format;
  if (suf.base == 10) {
    d.exp += suf.exponent;
  } else {
    for (int32_t i = 0; i < suf.exponent; i += 10) d.mag.mulSmall(1024);
  }
  if (d.isZero()) {
    Quantity zero;
    zero.format_ = format;
    return zero;
  }

  // Non-zero values are rounded up (away from zero) to the smallest representable unit, 1n.
  roundUpToExp(d, kNano);

  if (format == Format::BinarySI) {
    // BinarySI is capped at the int64 range (upstream's maxAllowed).
    Dec maxAllowed;
    maxAllowed.mag = BigU::fromU64(static_cast<uint64_t>(kMostPositive));
    if (cmpAbs(d, maxAllowed) > 0) {
      maxAllowed.neg = d.neg;
      d = std::move(maxAllowed);
    }
    Dec one;
    one.mag = BigU::fromU64(1);
    if (cmpAbs(d, one) < 0) format = Format::DecimalSI;
  }

  Quantity q;
  q.format_ = format;
  fromDec(std::move(d), &q.mantissa_, &q.scale_, &q.big_);
  return q;
}

Quantity Quantity::fromInt(int64_t value, Format format) {
  return fromScaled(value, 0, format);
}

Quantity Quantity::fromMilli(int64_t milliValue, Format format) {
  return fromScaled(milliValue, -3, format);
}

Quantity Quantity::fromScaled(int64_t value, int32_t scale, Format format) {
  Quantity q;
  q.mantissa_ = value;
  q.scale_ = value == 0 ? 0 : scale;
  q.format_ = format;
  return q;
}

int64_t Quantity::value() const {
  return scaledValue(0);
}

int64_t Quantity::milliValue() const {
  return scaledValue(-3);
}

int64_t Quantity::scaledValue(int32_t scale) const {
  if (!big_.empty()) return scaledValueDec(toDec(mantissa_, scale_, big_), scale);
  // int64Amount.AsScaledInt64.
  if (mantissa_ == 0) return 0;
  int64_t delta = static_cast<int64_t>(scale_) - scale;
  if (delta < 0) {
    if (-delta >= 19) return mantissa_ < 0 ? -1 : 1;
    return negativeScale(mantissa_, -delta);
  }
  int64_t out = 0;
  if (delta >= 19 || !positiveScale(mantissa_, delta, &out))
    return mantissa_ < 0 ? kMostNegative : kMostPositive;
  return out;
}

std::optional<int64_t> Quantity::asInt64() const {
  if (!big_.empty()) return std::nullopt;
  if (scale_ == 0) return mantissa_;
  if (scale_ < 0) return std::nullopt;
  int64_t out = 0;
  if (scale_ >= 19 || !positiveScale(mantissa_, scale_, &out)) return std::nullopt;
  return out;
}

double Quantity::asApproximateFloat64() const {
  double base = big_.empty() ? static_cast<double>(mantissa_) : std::strtod(big_.c_str(), nullptr);
  if (scale_ == 0) return base;
  return base * std::pow(10.0, scale_);
}

bool Quantity::isZero() const {
  return big_.empty() && mantissa_ == 0;
}

int Quantity::sign() const {
  if (!big_.empty()) return big_[0] == '-' ? -1 : 1;
  return mantissa_ == 0 ? 0 : (mantissa_ < 0 ? -1 : 1);
}

std::string Quantity::toString() const {
  if (isZero()) return "0";
  Dec d = toDec(mantissa_, scale_, big_);
  Format format = format_;
  std::string out;
  if (format == Format::BinarySI) {
    Dec limit;
    limit.mag = BigU::fromU64(1024);
    Dec rounded = d;
    if (cmpAbs(d, limit) < 0 || !roundUpToExp(rounded, 0)) {
      // Small or fractional binary values are shown as DecimalSI so no precision is lost.
      format = Format::DecimalSI;
    } else if (rounded.exp >= 70) {
      // Divisible by 2^70 = 1024^7: past Ei, so there is no binary suffix (see below).
      format = Format::DecimalExponent;
    } else {
      BigU m = rounded.mag;
      m.mulPow10(rounded.exp);  // 0 <= exp < 70
      int64_t exponent = 0;
      for (;;) {
        BigU t = m;
        if (t.divSmall(1024) != 0 || t.isZero()) break;
        m = std::move(t);
        ++exponent;
      }
      static constexpr std::array<std::string_view, 7> kBinary = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
      if (exponent < static_cast<int64_t>(kBinary.size())) {
        if (d.neg) out += '-';
        m.appendTo(out);
        out += kBinary[static_cast<size_t>(exponent)];
        return out;
      }
      // No binary suffix past Ei: fall back to an exact decimal in exponent notation.
      format = Format::DecimalExponent;
    }
  }
  int64_t exponent = 0;
  canonicalDecimal(d, out, &exponent);
  if (format == Format::DecimalSI) {
    bool ok = false;
    std::string_view s = decimalSuffix(exponent, &ok);
    if (ok) {
      out += s;
      return out;
    }
  }
  appendExponentSuffix(out, exponent);
  return out;
}

int Quantity::compare(const Quantity& other) const {
  if (big_.empty() && other.big_.empty()) {
    // int64Amount.Cmp: align by dividing the one with the smaller scale when that is cheap.
    int64_t a = mantissa_;
    int64_t b = other.mantissa_;
    if (scale_ == other.scale_ || a == 0 || b == 0) {
      if (scale_ == other.scale_ || (a == 0 && b == 0)) return a == b ? 0 : (a < b ? -1 : 1);
      int sa = a == 0 ? 0 : (a < 0 ? -1 : 1);
      int sb = b == 0 ? 0 : (b < 0 ? -1 : 1);
      return sa == sb ? 0 : (sa < sb ? -1 : 1);
    }
    int64_t diff = static_cast<int64_t>(scale_) - other.scale_;
    int64_t absDiff = diff < 0 ? -diff : diff;
    if (absDiff < 18) {
      int64_t divisor = static_cast<int64_t>(1);
      for (int64_t i = 0; i < absDiff; ++i) divisor *= 10;
      if (diff > 0) {
        int64_t q = b / divisor;
        int64_t r = b % divisor;
        if (q == a) return r == 0 ? 0 : (r > 0 ? -1 : 1);
        return a < q ? -1 : 1;
      }
      int64_t q = a / divisor;
      int64_t r = a % divisor;
      if (q == b) return r == 0 ? 0 : (r > 0 ? 1 : -1);
      return q < b ? -1 : 1;
    }
  }
  return cmpDec(toDec(mantissa_, scale_, big_), toDec(other.mantissa_, other.scale_, other.big_));
}

void Quantity::add(const Quantity& other) {
  if (isZero()) format_ = other.format_;
  if (other.isZero()) return;
  if (isZero()) {
    mantissa_ = other.mantissa_;
    scale_ = other.scale_;
    big_ = other.big_;
    return;
  }
  if (big_.empty() && other.big_.empty()) {
    // int64Amount.Add.
    int64_t a = mantissa_;
    int64_t b = other.mantissa_;
    int32_t scale = std::min(scale_, other.scale_);
    int64_t sa = 0;
    int64_t sb = 0;
    int64_t sum = 0;
    if (positiveScale(a, static_cast<int64_t>(scale_) - scale, &sa) &&
        positiveScale(b, static_cast<int64_t>(other.scale_) - scale, &sb) &&
        !__builtin_add_overflow(sa, sb, &sum)) {
      mantissa_ = sum;
      scale_ = sum == 0 ? 0 : scale;
      return;
    }
  }
  fromDec(addDec(toDec(mantissa_, scale_, big_), toDec(other.mantissa_, other.scale_, other.big_)),
          &mantissa_, &scale_, &big_);
}

void Quantity::sub(const Quantity& other) {
  if (isZero()) format_ = other.format_;
  if (other.isZero()) return;
  if (other.big_.empty() && other.mantissa_ != kMostNegative) {
    Format keep = format_;
    add(fromScaled(-other.mantissa_, other.scale_, other.format_));
    format_ = keep;
    return;
  }
  Dec neg = toDec(other.mantissa_, other.scale_, other.big_);
  neg.neg = !neg.neg;
  fromDec(addDec(toDec(mantissa_, scale_, big_), std::move(neg)), &mantissa_, &scale_, &big_);
}

}  // namespace ks::api
