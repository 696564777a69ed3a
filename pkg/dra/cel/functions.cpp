#include "pkg/dra/cel/functions.h"

#include "pkg/dra/cel/libraries.h"

#include <re2/re2.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <limits>
#include <mutex>
#include <set>

namespace ks::cel {


int64_t codePointCount(std::string_view s) {
  int64_t n = 0;
  for (char c : s)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  return n;
}

namespace {

using VK = Value::Kind;
using Args = std::span<const Value>;

Value err(std::string m) {
  return Value::error(std::move(m));
}
Value noOverload() {
  return err(kNoSuchOverload);
}

// Integer arithmetic with cel-go's overflow errors.
Value intResult(bool overflow, int64_t v) {
  return overflow ? err("integer overflow") : Value::integer(v);
}
Value uintResult(bool overflow, uint64_t v) {
  return overflow ? err("unsigned integer overflow") : Value::uinteger(v);
}

// cel-go's actualSize: the size of a traits.Sizer (strings in code points, bytes, lists, maps), else 1.
size_t textSize(const Value& v) {
  switch (v.kind()) {
    case VK::String:
      return static_cast<size_t>(codePointCount(v.text()));
    case VK::Bytes:
      return v.text().size();
    case VK::List:
      return v.items().size();
    case VK::Map:
      return v.mapValue().size();
    case VK::IP:  // Kubernetes' IP and CIDR are sizers too: bytes of the address or of the prefix
      return static_cast<size_t>(v.asIP().bitLength() / 8);
    case VK::CIDR:
      return static_cast<size_t>((v.asCIDR().bits + 7) / 8);
    default:
      return 1;
  }
}

// Go's regexp.Compile error for a pattern RE2 rejected: "error parsing regexp: <code>: `<fragment>`".
std::string goRegexpError(const re2::RE2& re) {
  std::string code;
  switch (re.error_code()) {
    case re2::RE2::ErrorMissingBracket:
      code = "missing closing ]";
      break;
    case re2::RE2::ErrorMissingParen:
      code = "missing closing )";
      break;
    case re2::RE2::ErrorUnexpectedParen:
      code = "unexpected )";
      break;
    case re2::RE2::ErrorRepeatArgument:
      code = "missing argument to repetition operator";
      break;
    case re2::RE2::ErrorRepeatOp:
      code = "invalid nested repetition operator";
      break;
    case re2::RE2::ErrorRepeatSize:
      code = "invalid repeat count";
      break;
    case re2::RE2::ErrorBadEscape:
      code = "invalid escape sequence";
      break;
    case re2::RE2::ErrorBadCharRange:
      code = "invalid character class range";
      break;
    case re2::RE2::ErrorBadCharClass:
      code = "invalid character class";
      break;
    case re2::RE2::ErrorTrailingBackslash:
      code = "trailing backslash at end of expression";
      break;
    case re2::RE2::ErrorBadPerlOp:
      code = "invalid or unsupported Perl syntax";
      break;
    case re2::RE2::ErrorBadNamedCapture:
      code = "invalid named capture";
      break;
    case re2::RE2::ErrorBadUTF8:
      code = "invalid UTF-8";
      break;
    case re2::RE2::ErrorPatternTooLarge:
      code = "expression too large";
      break;
    default:
      return "error parsing regexp: " + re.error();
  }
  return "error parsing regexp: " + code + ": `" + re.error_arg() + "`";
}

// Regular expressions compiled once per pattern (RE2 has Go's regexp syntax).
std::shared_ptr<const re2::RE2> compileRegex(const std::string& pattern, std::string& error) {
  static std::mutex mu;
  static std::unordered_map<std::string, std::shared_ptr<const re2::RE2>> cache;
  std::lock_guard lock(mu);
  if (auto it = cache.find(pattern); it != cache.end()) return it->second;
  re2::RE2::Options options;
  options.set_log_errors(false);
  auto re = std::make_shared<const re2::RE2>(pattern, options);
  if (!re->ok()) {
    error = goRegexpError(*re);
    return nullptr;
  }
  if (cache.size() > 1000) cache.clear();
  cache.emplace(pattern, re);
  return re;
}


std::optional<int> compareArgs(Args a) {
  return compareValues(a[0], a[1]);
}

Value less(Args a) {
  auto c = compareArgs(a);
  if (!c) return isNaN(a[0]) || isNaN(a[1]) ? Value::boolean(false) : noOverload();
  return Value::boolean(*c < 0);
}
Value lessEquals(Args a) {
  auto c = compareArgs(a);
  if (!c) return isNaN(a[0]) || isNaN(a[1]) ? Value::boolean(false) : noOverload();
  return Value::boolean(*c <= 0);
}
Value greater(Args a) {
  auto c = compareArgs(a);
  if (!c) return isNaN(a[0]) || isNaN(a[1]) ? Value::boolean(false) : noOverload();
  return Value::boolean(*c > 0);
}
Value greaterEquals(Args a) {
  auto c = compareArgs(a);
  if (!c) return isNaN(a[0]) || isNaN(a[1]) ? Value::boolean(false) : noOverload();
  return Value::boolean(*c >= 0);
}

// Int and uint arithmetic fails on overflow ("integer overflow"), as cel-go's; doubles follow IEEE.
template <typename IntOp, typename DoubleOp>
Value arithmetic(const Value& x, const Value& y, IntOp intOp, DoubleOp doubleOp) {
  switch (x.kind()) {
    case VK::Int: {
      int64_t r = 0;
      const bool overflow = intOp(x.asInt(), y.asInt(), &r);
      return intResult(overflow, r);
    }
    case VK::Uint: {
      uint64_t r = 0;
      const bool overflow = intOp(x.asUint(), y.asUint(), &r);
      return uintResult(overflow, r);
    }
    case VK::Double:
      return Value::dbl(doubleOp(x.asDouble(), y.asDouble()));
    default:
      return noOverload();
  }
}

Value add(Args a) {
  const Value& x = a[0];
  const Value& y = a[1];
  if (x.kind() != y.kind()) return noOverload();
  switch (x.kind()) {
    case VK::String:
      return Value::string(x.text() + y.text());
    case VK::Bytes:
      return Value::bytes(x.text() + y.text());
    case VK::List: {
      if (y.items().empty()) return x;
      if (x.items().empty()) return y;
      ValueList out = x.items();
      out.insert(out.end(), y.items().begin(), y.items().end());
      return Value::list(std::move(out));
    }
    default:
      return arithmetic(
          x, y, [](auto l, auto r, auto* out) { return __builtin_add_overflow(l, r, out); },
          std::plus<double>());
  }
}

Value subtract(Args a) {
  if (a[0].kind() != a[1].kind()) return noOverload();
  return arithmetic(
      a[0], a[1], [](auto l, auto r, auto* out) { return __builtin_sub_overflow(l, r, out); },
      std::minus<double>());
}

Value multiply(Args a) {
  if (a[0].kind() != a[1].kind()) return noOverload();
  return arithmetic(
      a[0], a[1], [](auto l, auto r, auto* out) { return __builtin_mul_overflow(l, r, out); },
      std::multiplies<double>());
}

Value divide(Args a) {
  const Value& x = a[0];
  const Value& y = a[1];
  if (x.kind() != y.kind()) return noOverload();
  switch (x.kind()) {
    case VK::Int:
      if (y.asInt() == 0) return err("division by zero");
      if (x.asInt() == std::numeric_limits<int64_t>::min() && y.asInt() == -1) return err("integer overflow");
      return Value::integer(x.asInt() / y.asInt());
    case VK::Uint:
      if (y.asUint() == 0) return err("division by zero");
      return Value::uinteger(x.asUint() / y.asUint());
    case VK::Double:
      return Value::dbl(x.asDouble() / y.asDouble());
    default:
      return noOverload();
  }
}

Value modulo(Args a) {
  const Value& x = a[0];
  const Value& y = a[1];
  if (x.kind() != y.kind()) return noOverload();
  switch (x.kind()) {
    case VK::Int:
      if (y.asInt() == 0) return err("modulus by zero");
      if (x.asInt() == std::numeric_limits<int64_t>::min() && y.asInt() == -1) return err("integer overflow");
      return Value::integer(x.asInt() % y.asInt());
    case VK::Uint:
      if (y.asUint() == 0) return err("modulus by zero");
      return Value::uinteger(x.asUint() % y.asUint());
    default:
      return noOverload();
  }
}

Value negate(Args a) {
  if (a[0].kind() == VK::Int) {
    if (a[0].asInt() == std::numeric_limits<int64_t>::min()) return err("integer overflow");
    return Value::integer(-a[0].asInt());
  }
  if (a[0].kind() == VK::Double) return Value::dbl(-a[0].asDouble());
  return noOverload();
}

Value logicalNot(Args a) {
  return a[0].kind() == VK::Bool ? Value::boolean(!a[0].asBool()) : noOverload();
}

// Kubernetes' Quantity and Semver answer Equal with "no such overload" for another type (on the left
// only: cel-go calls lhs.Equal(rhs); null on either side compares as null).
Value equalsChecked(const Value& l, const Value& r) {
  if ((l.kind() == VK::Quantity || l.kind() == VK::Semver || l.kind() == VK::IP || l.kind() == VK::CIDR ||
       l.kind() == VK::URL || l.kind() == VK::NamedFormat) &&
      r.kind() != l.kind() && r.kind() != VK::Null)
    return err(kNoSuchOverload);
  if (l.kind() == VK::Quantity && r.isQuantityRef()) return err(kNoSuchOverload);  // Equal wants a Quantity
  return equals(l, r);
}
Value equalsFn(Args a) {
  return equalsChecked(a[0], a[1]);
}
Value notEqualsFn(Args a) {
  // cel-go's evalNe: `Equal(l, r) != True`, so a Quantity or Semver against another type is unequal.
  Value e = equals(a[0], a[1]);
  return e.isError() ? e : Value::boolean(!e.asBool());
}

Value inFn(Args a) {
  const Value& elem = a[0];
  if (a[1].kind() == VK::List) {
    for (const Value& v : a[1].items()) {
      // cel-go asks elem.Equal(v); a Quantity answers an error (not equal) for the *Quantity of add/sub.
      if (elem.kind() == VK::Quantity && v.isQuantityRef()) continue;
      if (equalValues(v, elem)) return Value::boolean(true);
    }
    return Value::boolean(false);
  }
  if (a[1].kind() == VK::Map) return Value::boolean(a[1].mapValue().contains(elem));
  return noOverload();
}

Value indexFn(Args a) {
  return indexValue(a[0], a[1]);
}

}  // namespace

Value indexValue(const Value& c, const Value& k) {
  if (c.kind() == VK::List) {
    int64_t i = 0;
    if (k.kind() == VK::Int) {
      i = k.asInt();
    } else if (k.kind() == VK::Uint) {
      i = static_cast<int64_t>(k.asUint());
    } else if (k.kind() == VK::Double) {
      if (std::trunc(k.asDouble()) != k.asDouble())
        return err("unsupported index value " + formatDouble(k.asDouble()) + " in list");
      i = static_cast<int64_t>(k.asDouble());
    } else {
      return err("unsupported index type '" + std::string(k.typeName()) + "' in list");
    }
    if (i < 0 || static_cast<size_t>(i) >= c.items().size())
      return err("index out of bounds: " + std::to_string(i));
    return c.items()[static_cast<size_t>(i)];
  }
  if (c.kind() == VK::Map) {
    if (auto v = c.mapValue().find(k)) return *v;
    if (k.kind() == VK::String) return err("no such key: " + k.text());
    if (k.kind() == VK::Int) return err("no such key: " + std::to_string(k.asInt()));
    if (k.kind() == VK::Uint) return err("no such key: " + std::to_string(k.asUint()));
    if (k.kind() == VK::Bool) return err(std::string("no such key: ") + (k.asBool() ? "true" : "false"));
    return err("no such key");
  }
  return noOverload();
}

namespace {

Value sizeFn(Args a) {
  switch (a[0].kind()) {
    case VK::String:
      return Value::integer(codePointCount(a[0].text()));
    case VK::Bytes:
      return Value::integer(static_cast<int64_t>(a[0].text().size()));
    case VK::List:
      return Value::integer(static_cast<int64_t>(a[0].items().size()));
    case VK::Map:
      return Value::integer(static_cast<int64_t>(a[0].mapValue().size()));
    default:
      return noOverload();
  }
}

// Conversions ---------------------------------------------------------------------------------------

Value toInt(Args a) {
  const Value& v = a[0];
  switch (v.kind()) {
    case VK::Int:
      return v;
    case VK::Uint:
      if (v.asUint() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        return err("integer overflow");
      return Value::integer(static_cast<int64_t>(v.asUint()));
    case VK::Double: {
      const double d = v.asDouble();
      if (!(d > -9223372036854775808.0 && d < 9223372036854775807.0)) return err("integer overflow");
      return Value::integer(static_cast<int64_t>(d));
    }
    case VK::String: {
      int64_t out = 0;
      const std::string& s = v.text();
      auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
      if (ec != std::errc() || p != s.data() + s.size() || s.empty())
        return err("type conversion error from 'string' to 'int'");
      return Value::integer(out);
    }
    default:
      return noOverload();
  }
}

Value toUint(Args a) {
  const Value& v = a[0];
  switch (v.kind()) {
    case VK::Uint:
      return v;
    case VK::Int:
      if (v.asInt() < 0) return err("unsigned integer overflow");
      return Value::uinteger(static_cast<uint64_t>(v.asInt()));
    case VK::Double: {
      const double d = v.asDouble();
      if (!(d >= 0 && d < 18446744073709551616.0)) return err("unsigned integer overflow");
      return Value::uinteger(static_cast<uint64_t>(d));
    }
    case VK::String: {
      uint64_t out = 0;
      const std::string& s = v.text();
      auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
      if (ec != std::errc() || p != s.data() + s.size() || s.empty())
        return err("type conversion error from 'string' to 'uint'");
      return Value::uinteger(out);
    }
    default:
      return noOverload();
  }
}

Value toDouble(Args a) {
  const Value& v = a[0];
  switch (v.kind()) {
    case VK::Double:
      return v;
    case VK::Int:
      return Value::dbl(static_cast<double>(v.asInt()));
    case VK::Uint:
      return Value::dbl(static_cast<double>(v.asUint()));
    case VK::String: {
      const std::string& s = v.text();
      char* end = nullptr;
      const double d = std::strtod(s.c_str(), &end);
      if (s.empty() || end != s.c_str() + s.size())
        return err("type conversion error from 'string' to 'double'");
      return Value::dbl(d);
    }
    default:
      return noOverload();
  }
}

bool validUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    i += n;
  }
  return true;
}

Value toString(Args a) {
  const Value& v = a[0];
  switch (v.kind()) {
    case VK::String:
      return v;
    case VK::Int:
      return Value::string(std::to_string(v.asInt()));
    case VK::Uint:
      return Value::string(std::to_string(v.asUint()));
    case VK::Double:
      return Value::string(formatDouble(v.asDouble()));
    case VK::Bool:
      return Value::string(v.asBool() ? "true" : "false");
    case VK::Bytes:
      if (!validUtf8(v.text())) return err("invalid UTF-8 in bytes, cannot convert to string");
      return Value::string(v.text());
    default:
      return noOverload();
  }
}

Value toBytes(Args a) {
  if (a[0].kind() == VK::Bytes) return a[0];
  if (a[0].kind() == VK::String) return Value::bytes(a[0].text());
  return noOverload();
}

Value toBool(Args a) {
  if (a[0].kind() == VK::Bool) return a[0];
  if (a[0].kind() != VK::String) return noOverload();
  static const std::set<std::string, std::less<>> trues = {"1", "t", "true", "TRUE", "True"};
  static const std::set<std::string, std::less<>> falses = {"0", "f", "false", "FALSE", "False"};
  if (trues.contains(a[0].text())) return Value::boolean(true);
  if (falses.contains(a[0].text())) return Value::boolean(false);
  return err("type conversion error from 'string' to 'bool'");
}

Value dynFn(Args a) {
  return a[0];
}
Value typeFn(Args a) {
  return Value::type(std::string(a[0].typeName()));
}

// Strings -------------------------------------------------------------------------------------------

Value containsFn(Args a) {
  return Value::boolean(a[0].text().find(a[1].text()) != std::string::npos);
}
Value startsWithFn(Args a) {
  return Value::boolean(a[0].text().starts_with(a[1].text()));
}
Value endsWithFn(Args a) {
  return Value::boolean(a[0].text().ends_with(a[1].text()));
}

Value matchesFn(Args a) {
  std::string error;
  auto re = compileRegex(a[1].text(), error);
  if (!re) return err(error);
  return Value::boolean(re2::RE2::PartialMatch(a[0].text(), *re));
}

// Code-point boundaries of s: starts[i] is the byte offset of code point i; starts.back() == s.size().
std::vector<size_t> codePointStarts(std::string_view s) {
  std::vector<size_t> starts;
  for (size_t i = 0; i < s.size(); ++i)
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) starts.push_back(i);
  starts.push_back(s.size());
  return starts;
}

Value charAtFn(Args a) {
  const auto starts = codePointStarts(a[0].text());
  const int64_t i = a[1].asInt();
  const auto n = static_cast<int64_t>(starts.size() - 1);
  if (i < 0 || i > n) return err("index out of range: " + std::to_string(i));
  if (i == n) return Value::string("");
  const auto k = static_cast<size_t>(i);
  return Value::string(a[0].text().substr(starts[k], starts[k + 1] - starts[k]));
}

// cel-go ext/strings.go indexOf / indexOfOffset / lastIndexOf / lastIndexOfOffset, in code points,
// quirks included: an empty substring returns the offset unchecked, an offset past the end gives -1.
Value indexOfImpl(Args a, bool last) {
  const std::string& s = a[0].text();
  const std::string& sub = a[1].text();
  const auto starts = codePointStarts(s);
  const auto n = static_cast<int64_t>(starts.size() - 1);
  const int64_t m = codePointCount(sub);
  const auto matchesAt = [&](int64_t i) {
    return i >= 0 && i + m <= n && s.compare(starts[static_cast<size_t>(i)], sub.size(), sub) == 0;
  };
  int64_t off = 0;
  if (a.size() == 3) {
    off = a[2].asInt();
  } else if (last) {
    if (sub.empty()) return Value::integer(n);
    if (s.size() < sub.size()) return Value::integer(-1);
    off = n - 1;
  }
  if (sub.empty()) return Value::integer(off);
  if (off < 0) return err("index out of range: " + std::to_string(off));
  if (off >= n) return Value::integer(-1);
  if (!last) {
    for (int64_t i = off; i < n - (m - 1); ++i)
      if (matchesAt(i)) return Value::integer(i);
  } else {
    if (off > n - m) off = n - m;
    for (int64_t i = off; i >= 0; --i)
      if (matchesAt(i)) return Value::integer(i);
  }
  return Value::integer(-1);
}
Value indexOfFn(Args a) {
  return indexOfImpl(a, false);
}
Value lastIndexOfFn(Args a) {
  return indexOfImpl(a, true);
}

Value lowerAsciiFn(Args a) {
  std::string s = a[0].text();
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return Value::string(std::move(s));
}
Value upperAsciiFn(Args a) {
  std::string s = a[0].text();
  for (char& c : s)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return Value::string(std::move(s));
}

Value replaceFn(Args a) {
  const std::string& s = a[0].text();
  const std::string& from = a[1].text();
  const std::string& to = a[2].text();
  int64_t limit = a.size() == 4 ? a[3].asInt() : -1;
  if (limit == 0) return a[0];
  std::string out;
  if (from.empty()) {
    // Go's strings.Replace with an empty old string inserts `to` before every code point and at the end.
    const auto starts = codePointStarts(s);
    for (size_t i = 0; i + 1 < starts.size(); ++i) {
      if (limit != 0) {
        out += to;
        if (limit > 0) --limit;
      }
      out.append(s, starts[i], starts[i + 1] - starts[i]);
    }
    if (limit != 0) out += to;
    return Value::string(std::move(out));
  }
  size_t pos = 0;
  for (;;) {
    const size_t at = limit == 0 ? std::string::npos : s.find(from, pos);
    if (at == std::string::npos) break;
    out.append(s, pos, at - pos);
    out += to;
    pos = at + from.size();
    if (limit > 0) --limit;
  }
  out.append(s, pos, std::string::npos);
  return Value::string(std::move(out));
}

Value splitFn(Args a) {
  const std::string& s = a[0].text();
  const std::string& sep = a[1].text();
  int64_t limit = a.size() == 3 ? a[2].asInt() : -1;
  ValueList out;
  if (limit == 0) return Value::list({});
  if (limit == 1) return Value::list({Value::string(s)});
  if (sep.empty()) {
    const auto starts = codePointStarts(s);
    for (size_t i = 0; i + 1 < starts.size(); ++i) {
      if (limit > 0 && static_cast<int64_t>(out.size()) == limit - 1) {
        out.push_back(Value::string(s.substr(starts[i])));
        return Value::list(std::move(out));
      }
      out.push_back(Value::string(s.substr(starts[i], starts[i + 1] - starts[i])));
    }
    return Value::list(std::move(out));
  }
  size_t pos = 0;
  for (;;) {
    if (limit > 0 && static_cast<int64_t>(out.size()) == limit - 1) break;
    const size_t at = s.find(sep, pos);
    if (at == std::string::npos) break;
    out.push_back(Value::string(s.substr(pos, at - pos)));
    pos = at + sep.size();
  }
  out.push_back(Value::string(s.substr(pos)));
  return Value::list(std::move(out));
}

Value substringFn(Args a) {
  const auto starts = codePointStarts(a[0].text());
  const auto n = static_cast<int64_t>(starts.size() - 1);
  const int64_t begin = a[1].asInt();
  const int64_t end = a.size() == 3 ? a[2].asInt() : n;
  if (begin < 0 || begin > n) return err("index out of range: " + std::to_string(begin));
  if (end < 0 || end > n) return err("index out of range: " + std::to_string(end));
  if (begin > end)
    return err("invalid substring range. start: " + std::to_string(begin) + ", end: " + std::to_string(end));
  const size_t b = starts[static_cast<size_t>(begin)];
  return Value::string(a[0].text().substr(b, starts[static_cast<size_t>(end)] - b));
}

Value trimFn(Args a) {
  // Unicode white space as Go's unicode.IsSpace sees it (ASCII and the common multi-byte ones).
  static const std::vector<std::string> spaces = {" ",
                                                  "\t",
                                                  "\n",
                                                  "\v",
                                                  "\f",
                                                  "\r",
                                                  "\xC2\x85",
                                                  "\xC2\xA0",
                                                  "\xE1\x9A\x80",
                                                  "\xE2\x80\xA8",
                                                  "\xE2\x80\xA9",
                                                  "\xE2\x80\xAF",
                                                  "\xE2\x81\x9F",
                                                  "\xE3\x80\x80"};
  std::string_view s = a[0].text();
  auto strip = [&](bool front) {
    for (bool changed = true; changed && !s.empty();) {
      changed = false;
      for (const std::string& sp : spaces) {
        if (front ? s.starts_with(sp) : s.ends_with(sp)) {
          front ? s.remove_prefix(sp.size()) : s.remove_suffix(sp.size());
          changed = true;
        }
      }
      // U+2000..U+200A
      if (!changed && s.size() >= 3) {
        std::string_view c = front ? s.substr(0, 3) : s.substr(s.size() - 3);
        if (c[0] == '\xE2' && c[1] == '\x80' && static_cast<unsigned char>(c[2]) >= 0x80 &&
            static_cast<unsigned char>(c[2]) <= 0x8A) {
          front ? s.remove_prefix(3) : s.remove_suffix(3);
          changed = true;
        }
      }
    }
  };
  strip(true);
  strip(false);
  return Value::string(std::string(s));
}

Value joinFn(Args a) {
  std::string out;
  const std::string sep = a.size() == 2 ? a[1].text() : "";
  bool first = true;
  for (const Value& v : a[0].items()) {
    if (v.kind() != VK::String) return noOverload();
    if (!first) out += sep;
    out += v.text();
    first = false;
  }
  return Value::string(std::move(out));
}

// Kubernetes quantity library --------------------------------------------------------------------------

Value quantityFn(Args a) {
  auto q = api::Quantity::parse(a[0].text());
  if (!q.ok()) return err(q.error().message());
  return Value::quantity(std::move(*q));
}
Value isQuantityFn(Args a) {
  return Value::boolean(api::Quantity::parse(a[0].text()).ok());
}
Value quantitySignFn(Args a) {
  return Value::integer(a[0].asQuantity().sign());
}
Value quantityIsGreaterThan(Args a) {
  return Value::boolean(a[0].asQuantity().compare(a[1].asQuantity()) == 1);
}
Value quantityIsLessThan(Args a) {
  return Value::boolean(a[0].asQuantity().compare(a[1].asQuantity()) == -1);
}
Value quantityCompareTo(Args a) {
  return Value::integer(a[0].asQuantity().compare(a[1].asQuantity()));
}
Value quantityAsApproximateFloat(Args a) {
  return Value::dbl(a[0].asQuantity().asApproximateFloat64());
}
Value quantityIsInteger(Args a) {
  return Value::boolean(a[0].asQuantity().asInt64().has_value());
}
Value quantityAsInteger(Args a) {
  auto v = a[0].asQuantity().asInt64();
  if (!v) return err("cannot convert value to integer");
  return Value::integer(*v);
}
Value quantityAdd(Args a) {
  api::Quantity q = a[0].asQuantity();
  q.add(a[1].kind() == VK::Int ? api::Quantity::fromInt(a[1].asInt(), api::Quantity::Format::DecimalExponent)
                               : a[1].asQuantity());
  return Value::quantityRef(std::move(q));
}
Value quantitySub(Args a) {
  api::Quantity q = a[0].asQuantity();
  q.sub(a[1].kind() == VK::Int ? api::Quantity::fromInt(a[1].asInt(), api::Quantity::Format::DecimalExponent)
                               : a[1].asQuantity());
  return Value::quantityRef(std::move(q));
}

// Kubernetes semver library ----------------------------------------------------------------------------

Value semverFn(Args a) {
  const bool normalize = a.size() == 2 && a[1].asBool();
  auto v = normalize ? Semver::parseNormalized(a[0].text()) : Semver::parse(a[0].text());
  if (!v.ok()) return err(v.error().message());
  return Value::semver(std::move(*v));
}
Value isSemverFn(Args a) {
  const bool normalize = a.size() == 2 && a[1].asBool();
  return Value::boolean(normalize ? Semver::parseNormalized(a[0].text()).ok()
                                  : Semver::parse(a[0].text()).ok());
}
Value semverMajor(Args a) {
  return Value::integer(static_cast<int64_t>(a[0].asSemver().major));
}
Value semverMinor(Args a) {
  return Value::integer(static_cast<int64_t>(a[0].asSemver().minor));
}
Value semverPatch(Args a) {
  return Value::integer(static_cast<int64_t>(a[0].asSemver().patch));
}
Value semverIsGreaterThan(Args a) {
  return Value::boolean(a[0].asSemver().compare(a[1].asSemver()) == 1);
}
Value semverIsLessThan(Args a) {
  return Value::boolean(a[0].asSemver().compare(a[1].asSemver()) == -1);
}
Value semverCompareTo(Args a) {
  return Value::integer(a[0].asSemver().compare(a[1].asSemver()));
}

// Kubernetes regex library -----------------------------------------------------------------------------

Value findFn(Args a) {
  std::string error;
  auto re = compileRegex(a[1].text(), error);
  if (!re) return err(error);
  re2::StringPiece match;
  if (!re->Match(a[0].text(), 0, a[0].text().size(), re2::RE2::UNANCHORED, &match, 1))
    return Value::string("");
  return Value::string(std::string(match.data(), match.size()));
}

Value findAllFn(Args a) {
  std::string error;
  auto re = compileRegex(a[1].text(), error);
  if (!re) return err(error);
  int64_t limit = a.size() == 3 ? a[2].asInt() : -1;
  ValueList out;
  const std::string& s = a[0].text();
  size_t pos = 0;
  size_t prevEnd = std::string::npos;
  while (pos <= s.size() && (limit < 0 || static_cast<int64_t>(out.size()) < limit)) {
    re2::StringPiece m;
    if (!re->Match(s, pos, s.size(), re2::RE2::UNANCHORED, &m, 1)) break;
    const auto start = static_cast<size_t>(m.data() - s.data());
    const size_t end = start + m.size();
    // Go's FindAll skips an empty match right after the previous match.
    if (!(m.empty() && start == prevEnd)) out.push_back(Value::string(std::string(m.data(), m.size())));
    prevEnd = end;
    if (end > pos) {
      pos = end;
    } else {
      size_t n = 1;
      while (pos + n < s.size() && (static_cast<unsigned char>(s[pos + n]) & 0xC0) == 0x80) ++n;
      pos += n;
    }
  }
  return Value::list(std::move(out));
}

// Kubernetes lists library -----------------------------------------------------------------------------

Value isSortedFn(Args a) {
  const ValueList& l = a[0].items();
  for (size_t i = 1; i < l.size(); ++i) {
    auto c = compareValues(l[i - 1], l[i]);
    if (!c) return noOverload();
    if (*c > 0) return Value::boolean(false);
  }
  return Value::boolean(true);
}

Value sumFn(Args a) {
  const ValueList& l = a[0].items();
  if (l.empty()) return Value::integer(0);  // the checker types the zero by the element type
  Value acc = l[0];
  for (size_t i = 1; i < l.size(); ++i) {
    const Value pair[2] = {acc, l[i]};
    acc = add(pair);
    if (acc.isError()) return acc;
  }
  return acc;
}

Value minMaxImpl(Args a, int want) {
  const ValueList& l = a[0].items();
  if (l.empty()) return err(want < 0 ? "min called on empty list" : "max called on empty list");
  Value best = l[0];
  for (size_t i = 1; i < l.size(); ++i) {
    auto c = compareValues(l[i], best);
    if (!c) return noOverload();
    if (*c == want) best = l[i];
  }
  return best;
}
Value minFn(Args a) {
  return minMaxImpl(a, -1);
}
Value maxFn(Args a) {
  return minMaxImpl(a, 1);
}

Value listIndexOf(Args a) {
  const ValueList& l = a[0].items();
  for (size_t i = 0; i < l.size(); ++i)
    if (equalValues(l[i], a[1])) return Value::integer(static_cast<int64_t>(i));
  return Value::integer(-1);
}
// Kubernetes lists v1 (v1.37): whether a list holds the value, or any other receiver equals it.
Value includesFn(Args a) {
  if (a[0].kind() != VK::List) return Value::boolean(equalValues(a[0], a[1]));
  const ValueList& l = a[0].items();
  return Value::boolean(std::any_of(l.begin(), l.end(), [&](const Value& e) { return equalValues(e, a[1]); }));
}
Value listLastIndexOf(Args a) {
  const ValueList& l = a[0].items();
  for (size_t i = l.size(); i-- > 0;)
    if (equalValues(l[i], a[1])) return Value::integer(static_cast<int64_t>(i));
  return Value::integer(-1);
}

// cel-go ext sets --------------------------------------------------------------------------------------

bool listHas(const ValueList& l, const Value& v) {
  return std::any_of(l.begin(), l.end(), [&](const Value& e) { return equalValues(e, v); });
}
Value setsContains(Args a) {
  for (const Value& v : a[1].items())
    if (!listHas(a[0].items(), v)) return Value::boolean(false);
  return Value::boolean(true);
}
Value setsEquivalent(Args a) {
  const Value ab[2] = {a[0], a[1]};
  const Value ba[2] = {a[1], a[0]};
  return Value::boolean(setsContains(ab).asBool() && setsContains(ba).asBool());
}
Value setsIntersects(Args a) {
  for (const Value& v : a[1].items())
    if (listHas(a[0].items(), v)) return Value::boolean(true);
  return Value::boolean(false);
}

// strings.quote (cel-go ext strings): the string in double quotes, escaping \a \b \f \n \r \t \v \\ and ".
Value stringsQuote(Args a) {
  std::string out = "\"";
  for (char c : a[0].text()) {
    switch (c) {
      case '\a':
        out += "\\a";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\v':
        out += "\\v";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      default:
        out += c;
    }
  }
  return Value::string(out + "\"");
}

// cel.@mapInsert (ext TwoVarComprehensions): a copy of the map with the entry (or the entries of a map)
// added; a key already there is an error.
Value mapInsert(Args a) {
  std::vector<std::pair<Value, Value>> entries;
  for (const Value& k : a[0].mapValue().keys()) entries.emplace_back(k, *a[0].mapValue().find(k));
  std::vector<std::pair<Value, Value>> add;
  if (a.size() == 3) {
    add.emplace_back(a[1], a[2]);
  } else {
    for (const Value& k : a[1].mapValue().keys()) add.emplace_back(k, *a[1].mapValue().find(k));
  }
  for (auto& entry : add) {  // not a structured binding: clang 14 (the fuzz build) can't capture one
    const Value& k = entry.first;
    if (a[0].mapValue().contains(k) ||
        std::any_of(entries.begin(), entries.end(), [&](const auto& e) { return equalValues(e.first, k); })) {
      const std::string key = k.kind() == VK::String ? k.text() : toString(std::array{k}).text();
      return err("insert failed: key " + key + " already exists");
    }
    entries.push_back(std::move(entry));
  }
  return Value::map(std::make_shared<const EntryMap>(std::move(entries)));
}

// cel-go ext lists (v3) ----------------------------------------------------------------------------

Value listsRange(Args a) {
  if (a[0].asInt() < 0)
    return Value::error("lists.range: size must be non-negative, got " + std::to_string(a[0].asInt()));
  ValueList out;
  for (int64_t i = 0; i < a[0].asInt(); ++i) out.push_back(Value::integer(i));
  return Value::list(std::move(out));
}
Value listReverse(Args a) {
  ValueList out(a[0].items().rbegin(), a[0].items().rend());
  return Value::list(std::move(out));
}
Value listSlice(Args a) {
  const int64_t start = a[1].asInt(), end = a[2].asInt();
  const auto n = static_cast<int64_t>(a[0].items().size());
  const std::string call = "cannot slice(" + std::to_string(start) + ", " + std::to_string(end) + "), ";
  if (start < 0 || end < 0) return err(call + "negative indexes not supported");
  if (start > end) return err(call + "start index must be less than or equal to end index");
  if (n < end) return err(call + "list is length " + std::to_string(n));
  return Value::list(ValueList(a[0].items().begin() + start, a[0].items().begin() + end));
}
void flattenInto(const ValueList& l, int64_t depth, ValueList& out) {
  for (const Value& v : l) {
    if (v.kind() != VK::List || depth == 0) {
      out.push_back(v);
    } else {
      flattenInto(v.items(), depth - 1, out);
    }
  }
}
Value listFlatten(Args a) {
  const int64_t depth = a.size() == 2 ? a[1].asInt() : 1;
  if (depth < 0) return err("level must be non-negative");
  ValueList out;
  flattenInto(a[0].items(), depth, out);
  return Value::list(std::move(out));
}
bool comparableKind(VK k) {
  return k == VK::Int || k == VK::Uint || k == VK::Double || k == VK::Bool || k == VK::String ||
         k == VK::Bytes || k == VK::Timestamp || k == VK::Duration;
}
// sortListByAssociatedKeys: keys must be comparable and of one type; Go's sort.Slice (insertion sort
// below 12 elements, so stable there).
Value sortByKeys(const ValueList& list, const ValueList& keys) {
  if (list.size() != keys.size())
    return err(
        "@sortByAssociatedKeys() expected a list of the same size as the associated keys list, but got " +
        std::to_string(list.size()) + " and " + std::to_string(keys.size()) + " elements respectively");
  if (list.empty()) return Value::list(list);
  if (!comparableKind(keys[0].kind())) return err("list elements must be comparable");
  for (const Value& k : keys)
    if (k.kind() != keys[0].kind()) return err("list elements must have the same type");
  std::vector<size_t> idx(list.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::stable_sort(idx.begin(), idx.end(), [&](size_t x, size_t y) {
    auto c = compareValues(keys[x], keys[y]);
    return c && *c < 0;
  });
  ValueList out;
  for (size_t i : idx) out.push_back(list[i]);
  return Value::list(std::move(out));
}
Value listSort(Args a) {
  return sortByKeys(a[0].items(), a[0].items());
}
Value listSortByKeys(Args a) {
  return sortByKeys(a[0].items(), a[1].items());
}
Value listDistinct(Args a) {
  ValueList out;
  for (const Value& v : a[0].items()) {
    bool seen = false;
    for (const Value& o : out)
      if (equalValues(v, o)) seen = true;
    if (!seen) out.push_back(v);
  }
  return Value::list(std::move(out));
}

// Optional types (cel-go's OptionalTypes library) -----------------------------------------------------

Value optHasValue(Args a) {
  return Value::boolean(a[0].optionalValue() != nullptr);
}
Value optValue(Args a) {
  if (!a[0].optionalValue()) return err("optional.none() dereference");
  return *a[0].optionalValue();
}
Value optOrValue(Args a) {
  return a[0].optionalValue() ? *a[0].optionalValue() : a[1];
}
Value optOr(Args a) {
  return a[0].optionalValue() ? a[0] : a[1];
}
Value optOf(Args a) {
  return Value::optionalOf(a[0]);
}
Value optNone(Args) {
  return Value::optionalNone();
}
bool isZeroValue(const Value& v) {
  switch (v.kind()) {
    case VK::Null:
      return true;
    case VK::Bool:
      return !v.asBool();
    case VK::Int:
      return v.asInt() == 0;
    case VK::Uint:
      return v.asUint() == 0;
    case VK::Double:
      return v.asDouble() == 0;
    case VK::String:
    case VK::Bytes:
      return v.text().empty();
    case VK::List:
      return v.items().empty();
    case VK::Map:
      return v.mapValue().size() == 0;
    case VK::Duration:
      return v.asDurationNanos() == 0;
    case VK::Timestamp:  // Go's zero time, 0001-01-01T00:00:00Z
      return v.asTimestamp().seconds == kMinUnixSeconds && v.asTimestamp().nanos == 0;
    default:
      return false;
  }
}
Value optOfNonZero(Args a) {
  return isZeroValue(a[0]) ? Value::optionalNone() : Value::optionalOf(a[0]);
}
Value optUnwrap(Args a) {
  ValueList out;
  for (const Value& v : a[0].items()) {
    if (v.kind() != VK::Optional) return err(kNoSuchOverload);
    if (v.optionalValue()) out.push_back(*v.optionalValue());
  }
  return Value::list(std::move(out));
}
Value listFirst(Args a) {
  const ValueList& l = a[0].items();
  return l.empty() ? Value::optionalNone() : Value::optionalOf(l.front());
}
Value listLast(Args a) {
  const ValueList& l = a[0].items();
  return l.empty() ? Value::optionalNone() : Value::optionalOf(l.back());
}


}  // namespace

void FunctionRegistry::define(const char* fn, const char* id, bool member,
                              std::initializer_list<const char*> params, const char* result,
                              FunctionImpl impl) {
  Overload o;
  o.id = id;
  o.function = fn;
  o.member = member;
  for (const char* p : params) o.params.push_back(CelType::parse(p));
  o.result = CelType::parse(result);
  o.impl = impl;
  functions_[fn].push_back(std::move(o));
}

FunctionRegistry::FunctionRegistry() {
  auto add = [this](const char* fn, const char* id, bool member, std::initializer_list<const char*> params,
                    const char* result, FunctionImpl impl) { define(fn, id, member, params, result, impl); };
  const bool G = false, M = true;

  // Operators.
  const std::pair<const char*, const char*> ordered[] = {{"bool", "bool"},
                                                         {"int", "int"},
                                                         {"uint", "uint"},
                                                         {"double", "double"},
                                                         {"string", "string"},
                                                         {"bytes", "bytes"},
                                                         {"google.protobuf.Timestamp", "timestamp"},
                                                         {"google.protobuf.Duration", "duration"}};
  for (const auto& typeAndId : ordered) {
    const char* t = typeAndId.first;
    const std::string ts(typeAndId.second);
    add("_<_", ("less_" + ts).c_str(), G, {t, t}, "bool", less);
    add("_<=_", ("less_equals_" + ts).c_str(), G, {t, t}, "bool", lessEquals);
    add("_>_", ("greater_" + ts).c_str(), G, {t, t}, "bool", greater);
    add("_>=_", ("greater_equals_" + ts).c_str(), G, {t, t}, "bool", greaterEquals);
  }
  for (const char* a : {"int", "uint", "double"}) {
    for (const char* b : {"int", "uint", "double"}) {
      if (std::string(a) == b) continue;
      const std::string id = std::string(a) + "_" + b;
      add("_<_", ("less_" + id).c_str(), G, {a, b}, "bool", less);
      add("_<=_", ("less_equals_" + id).c_str(), G, {a, b}, "bool", lessEquals);
      add("_>_", ("greater_" + id).c_str(), G, {a, b}, "bool", greater);
      add("_>=_", ("greater_equals_" + id).c_str(), G, {a, b}, "bool", greaterEquals);
    }
  }
  add("_==_", "equals", G, {"A", "A"}, "bool", equalsFn);
  add("_!=_", "not_equals", G, {"A", "A"}, "bool", notEqualsFn);
  add("_+_", "add_int64", G, {"int", "int"}, "int", ks::cel::add);
  add("_+_", "add_uint64", G, {"uint", "uint"}, "uint", ks::cel::add);
  add("_+_", "add_double", G, {"double", "double"}, "double", ks::cel::add);
  add("_+_", "add_string", G, {"string", "string"}, "string", ks::cel::add);
  add("_+_", "add_bytes", G, {"bytes", "bytes"}, "bytes", ks::cel::add);
  add("_+_", "add_list", G, {"list(A)", "list(A)"}, "list(A)", ks::cel::add);
  for (const char* t : {"int", "uint", "double"}) {
    const std::string ts =
        std::string(t) == "int" ? "int64" : (std::string(t) == "uint" ? "uint64" : "double");
    add("_-_", ("subtract_" + ts).c_str(), G, {t, t}, t, subtract);
    add("_*_", ("multiply_" + ts).c_str(), G, {t, t}, t, multiply);
    add("_/_", ("divide_" + ts).c_str(), G, {t, t}, t, divide);
    if (std::string(t) != "double") add("_%_", ("modulo_" + ts).c_str(), G, {t, t}, t, modulo);
  }
  add("-_", "negate_int64", G, {"int"}, "int", negate);
  add("-_", "negate_double", G, {"double"}, "double", negate);
  add("!_", "logical_not", G, {"bool"}, "bool", logicalNot);
  add("@in", "in_list", G, {"A", "list(A)"}, "bool", inFn);
  add("@in", "in_map", G, {"A", "map(A, B)"}, "bool", inFn);
  add("_[_]", "index_list", G, {"list(A)", "int"}, "A", indexFn);
  add("_[_]", "index_map", G, {"map(A, B)", "A"}, "B", indexFn);

  for (const char* t : {"string", "bytes", "list(A)", "map(A, B)"}) {
    const std::string ts = std::string(t).substr(0, std::string(t).find('('));
    add("size", ("size_" + ts).c_str(), G, {t}, "int", sizeFn);
    add("size", (ts + "_size").c_str(), M, {t}, "int", sizeFn);
  }

  // Conversions.
  for (const char* t : {"int", "uint", "double", "string"})
    add("int", (std::string(t) + "_to_int64").c_str(), G, {t}, "int", toInt);
  for (const char* t : {"int", "uint", "double", "string"})
    add("uint", (std::string(t) + "_to_uint64").c_str(), G, {t}, "uint", toUint);
  for (const char* t : {"int", "uint", "double", "string"})
    add("double", (std::string(t) + "_to_double").c_str(), G, {t}, "double", toDouble);
  for (const char* t : {"int", "uint", "double", "string", "bytes", "bool"})
    add("string", (std::string(t) + "_to_string").c_str(), G, {t}, "string", toString);
  add("bytes", "bytes_to_bytes", G, {"bytes"}, "bytes", toBytes);
  add("bytes", "string_to_bytes", G, {"string"}, "bytes", toBytes);
  add("bool", "bool_to_bool", G, {"bool"}, "bool", toBool);
  add("bool", "string_to_bool", G, {"string"}, "bool", toBool);
  add("dyn", "to_dyn", G, {"A"}, "dyn", dynFn);
  add("type", "type", G, {"A"}, "type(A)", typeFn);

  // Strings (standard library).
  add("contains", "contains_string", M, {"string", "string"}, "bool", containsFn);
  add("startsWith", "starts_with_string", M, {"string", "string"}, "bool", startsWithFn);
  add("endsWith", "ends_with_string", M, {"string", "string"}, "bool", endsWithFn);
  add("matches", "matches_string", M, {"string", "string"}, "bool", matchesFn);
  add("matches", "matches", G, {"string", "string"}, "bool", matchesFn);

  // cel-go ext strings (version 2).
  add("charAt", "string_char_at_int", M, {"string", "int"}, "string", charAtFn);
  add("indexOf", "string_index_of_string", M, {"string", "string"}, "int", indexOfFn);
  add("indexOf", "string_index_of_string_int", M, {"string", "string", "int"}, "int", indexOfFn);
  add("lastIndexOf", "string_last_index_of_string", M, {"string", "string"}, "int", lastIndexOfFn);
  add("lastIndexOf", "string_last_index_of_string_int", M, {"string", "string", "int"}, "int", lastIndexOfFn);
  add("lowerAscii", "string_lower_ascii", M, {"string"}, "string", lowerAsciiFn);
  add("upperAscii", "string_upper_ascii", M, {"string"}, "string", upperAsciiFn);
  add("replace", "string_replace_string_string", M, {"string", "string", "string"}, "string", replaceFn);
  add("replace", "string_replace_string_string_int", M, {"string", "string", "string", "int"}, "string",
      replaceFn);
  add("split", "string_split_string", M, {"string", "string"}, "list(string)", splitFn);
  add("split", "string_split_string_int", M, {"string", "string", "int"}, "list(string)", splitFn);
  add("substring", "string_substring_int", M, {"string", "int"}, "string", substringFn);
  add("substring", "string_substring_int_int", M, {"string", "int", "int"}, "string", substringFn);
  add("trim", "string_trim", M, {"string"}, "string", trimFn);
  add("join", "list_join", M, {"list(string)"}, "string", joinFn);
  add("join", "list_join_string", M, {"list(string)", "string"}, "string", joinFn);

  // Kubernetes quantity.
  add("quantity", "string_to_quantity", G, {"string"}, "kubernetes.Quantity", quantityFn);
  add("isQuantity", "is_quantity_string", G, {"string"}, "bool", isQuantityFn);
  // Declared global (cel.Overload), although the library docs show `<Quantity>.sign()`.
  add("sign", "quantity_sign", G, {"kubernetes.Quantity"}, "int", quantitySignFn);
  add("isGreaterThan", "quantity_is_greater_than", M, {"kubernetes.Quantity", "kubernetes.Quantity"}, "bool",
      quantityIsGreaterThan);
  add("isLessThan", "quantity_is_less_than", M, {"kubernetes.Quantity", "kubernetes.Quantity"}, "bool",
      quantityIsLessThan);
  add("compareTo", "quantity_compare_to", M, {"kubernetes.Quantity", "kubernetes.Quantity"}, "int",
      quantityCompareTo);
  add("asApproximateFloat", "quantity_get_float", M, {"kubernetes.Quantity"}, "double",
      quantityAsApproximateFloat);
  add("asInteger", "quantity_get_int", M, {"kubernetes.Quantity"}, "int", quantityAsInteger);
  add("isInteger", "quantity_is_integer", M, {"kubernetes.Quantity"}, "bool", quantityIsInteger);
  add("add", "quantity_add", M, {"kubernetes.Quantity", "kubernetes.Quantity"}, "kubernetes.Quantity",
      quantityAdd);
  add("add", "quantity_add_int", M, {"kubernetes.Quantity", "int"}, "kubernetes.Quantity", quantityAdd);
  add("sub", "quantity_sub", M, {"kubernetes.Quantity", "kubernetes.Quantity"}, "kubernetes.Quantity",
      quantitySub);
  add("sub", "quantity_sub_int", M, {"kubernetes.Quantity", "int"}, "kubernetes.Quantity", quantitySub);

  // Kubernetes semver.
  add("semver", "string_to_semver", G, {"string"}, "kubernetes.Semver", semverFn);
  add("semver", "string_bool_to_semver", G, {"string", "bool"}, "kubernetes.Semver", semverFn);
  add("isSemver", "is_semver_string", G, {"string"}, "bool", isSemverFn);
  add("isSemver", "is_semver_string_bool", G, {"string", "bool"}, "bool", isSemverFn);
  add("major", "semver_major", M, {"kubernetes.Semver"}, "int", semverMajor);
  add("minor", "semver_minor", M, {"kubernetes.Semver"}, "int", semverMinor);
  add("patch", "semver_patch", M, {"kubernetes.Semver"}, "int", semverPatch);
  add("isGreaterThan", "semver_is_greater_than", M, {"kubernetes.Semver", "kubernetes.Semver"}, "bool",
      semverIsGreaterThan);
  add("isLessThan", "semver_is_less_than", M, {"kubernetes.Semver", "kubernetes.Semver"}, "bool",
      semverIsLessThan);
  add("compareTo", "semver_compare_to", M, {"kubernetes.Semver", "kubernetes.Semver"}, "int",
      semverCompareTo);

  // Kubernetes regex.
  add("find", "string_find_string", M, {"string", "string"}, "string", findFn);
  add("findAll", "string_find_all_string", M, {"string", "string"}, "list(string)", findAllFn);
  add("findAll", "string_find_all_string_int", M, {"string", "string", "int"}, "list(string)", findAllFn);

  // Kubernetes lists.
  add("isSorted", "list_is_sorted", M, {"list(A)"}, "bool", isSortedFn);
  add("sum", "list_sum", M, {"list(A)"}, "A", sumFn);
  add("min", "list_min", M, {"list(A)"}, "A", minFn);
  add("max", "list_max", M, {"list(A)"}, "A", maxFn);
  add("indexOf", "list_index_of", M, {"list(A)", "A"}, "int", listIndexOf);
  add("lastIndexOf", "list_last_index_of", M, {"list(A)", "A"}, "int", listLastIndexOf);
  add("includes", "list_includes_dyn_dyn", M, {"dyn", "dyn"}, "bool", includesFn);

  // cel-go ext sets.
  add("strings.quote", "strings_quote", G, {"string"}, "string", stringsQuote);

  add("cel.@mapInsert", "@mapInsert_map_key_value", G, {"map(K, V)", "K", "V"}, "map(K, V)", mapInsert);
  add("cel.@mapInsert", "@mapInsert_map_map", G, {"map(K, V)", "map(K, V)"}, "map(K, V)", mapInsert);

  // cel-go ext lists.
  add("lists.range", "lists_range", G, {"int"}, "list(int)", listsRange);
  add("reverse", "list_reverse", M, {"list(A)"}, "list(A)", listReverse);
  add("slice", "list_slice", M, {"list(A)", "int", "int"}, "list(A)", listSlice);
  add("flatten", "list_flatten", M, {"list(list(A))"}, "list(A)", listFlatten);
  add("flatten", "list_flatten_int", M, {"list(dyn)", "int"}, "list(dyn)", listFlatten);
  add("distinct", "list_distinct", M, {"list(A)"}, "list(A)", listDistinct);
  for (const char* t : {"int", "uint", "double", "bool", "google.protobuf.Duration",
                        "google.protobuf.Timestamp", "string", "bytes"}) {
    const std::string ts(t);
    add("sort", ("list_" + ts + "_sort").c_str(), M, {("list(" + ts + ")").c_str()},
        ("list(" + ts + ")").c_str(), listSort);
    add("@sortByAssociatedKeys", ("list_" + ts + "_sortByAssociatedKeys").c_str(), M,
        {"list(A)", ("list(" + ts + ")").c_str()}, "list(A)", listSortByKeys);
  }

  // Optional types.
  add("hasValue", "optional_hasValue", M, {"optional_type(A)"}, "bool", optHasValue);
  add("value", "optional_value", M, {"optional_type(A)"}, "A", optValue);
  add("orValue", "optional_orValue_value", M, {"optional_type(A)", "A"}, "A", optOrValue);
  add("or", "optional_or_optional", M, {"optional_type(A)", "optional_type(A)"}, "optional_type(A)", optOr);
  add("optional.of", "optional_of", G, {"A"}, "optional_type(A)", optOf);
  add("optional.ofNonZeroValue", "optional_ofNonZeroValue", G, {"A"}, "optional_type(A)", optOfNonZero);
  add("optional.none", "optional_none", G, {}, "optional_type(A)", optNone);
  add("optional.unwrap", "optional_unwrap", G, {"list(optional_type(A))"}, "list(A)", optUnwrap);
  add("first", "list_first", M, {"list(A)"}, "optional_type(A)", listFirst);
  add("last", "list_last", M, {"list(A)"}, "optional_type(A)", listLast);

  add("sets.contains", "list_sets_contains_list", G, {"list(A)", "list(A)"}, "bool", setsContains);
  add("sets.equivalent", "list_sets_equivalent_list", G, {"list(A)", "list(A)"}, "bool", setsEquivalent);
  add("sets.intersects", "list_sets_intersects_list", G, {"list(A)", "list(A)"}, "bool", setsIntersects);
  defineTimeLibrary(*this);
  defineNetLibrary(*this);
  defineUrlLibrary(*this);
  defineFormatLibrary(*this);
}

const std::vector<Overload>* FunctionRegistry::find(std::string_view function) const {
  auto it = functions_.find(std::string(function));
  return it == functions_.end() ? nullptr : &it->second;
}

bool FunctionRegistry::notImplemented(std::string_view) const {
  // Every function of upstream's StoredExpressions environment is implemented (the protobuf message
  // types are not; see Program's checker).
  return false;
}

namespace {

uint64_t ceilCost(double x) {
  return static_cast<uint64_t>(std::ceil(x));
}

// k8s.io/apiserver/pkg/cel/library traversalCost: string and bytes lengths (in bytes) times 0.1,
// truncated; lists and maps the sum over their elements (and keys); anything else 1.
uint64_t k8sTraversalCost(const Value& v) {
  switch (v.kind()) {
    case VK::String:
    case VK::Bytes:
      return static_cast<uint64_t>(static_cast<double>(v.text().size()) * 0.1);
    case VK::List: {
      uint64_t c = 0;
      for (const Value& e : v.items()) c += k8sTraversalCost(e);
      return c;
    }
    case VK::Map: {
      uint64_t c = 0;
      for (const Value& k : v.mapValue().keys()) {
        c += k8sTraversalCost(k);
        if (auto e = v.mapValue().find(k)) c += k8sTraversalCost(*e);
      }
      return c;
    }
    default:
      return 1;
  }
}

}  // namespace

uint64_t callCost(std::string_view function, std::string_view overloadId, std::span<const Value> a,
                  const Value& result) {
  const auto size = [&](size_t i) { return static_cast<double>(textSize(a[i])); };
  // 1. cel-go ext library trackers, by overload id (ext/sets.go).
  if (overloadId == "list_sets_contains_list" || overloadId == "list_sets_intersects_list")
    return 1 + static_cast<uint64_t>(textSize(a[0]) * textSize(a[1]));
  if (overloadId == "list_sets_equivalent_list")
    return 1 + static_cast<uint64_t>(static_cast<double>(textSize(a[0]) * textSize(a[1])) * 2);
  // cel-go ext lists v3 trackers: the result (or input) size times a factor, plus the call and the list.
  const auto allocating = [](double factor, double n) {
    // A negative factor (flatten with a negative depth) counts as 1; the sum saturates (cel-go v0.29).
    if (factor < 0) factor = 1;
    const double x = n * factor;
    // Go's uint64(float64) on amd64 for a value beyond uint64's range.
    const uint64_t elements = x < 18446744073709551616.0 ? static_cast<uint64_t>(x) : uint64_t{1} << 63;
    return elements > UINT64_MAX - 11 ? UINT64_MAX : elements + 1 + 10;
  };
  const auto selfCompare = [&](const Value& l) {
    const double n = static_cast<double>(textSize(l));
    double factor = 2.0;
    if (l.kind() == VK::List && !l.items().empty() &&
        (l.items()[0].kind() == VK::String || l.items()[0].kind() == VK::Bytes))
      factor += 0.1;
    return allocating(factor, n * n);
  };
  if (overloadId == "list_slice" || overloadId == "lists_range" || overloadId == "list_reverse")
    return allocating(1, static_cast<double>(textSize(result)));
  if (overloadId == "list_flatten" || overloadId == "list_flatten_int")
    return allocating(a.size() == 2 && a[1].kind() == VK::Int ? static_cast<double>(a[1].asInt()) : 1.0,
                      size(0));
  if (overloadId == "list_distinct" || (overloadId.starts_with("list_") && overloadId.ends_with("_sort")))
    return selfCompare(a[0]);
  if (overloadId.ends_with("_sortByAssociatedKeys") && a.size() == 2) return selfCompare(a[1]);
  // 2. Kubernetes' CostEstimator.CallCost, by function name (whatever the overload).
  if (function == "isSorted" || function == "sum" || function == "max" || function == "min" ||
      function == "indexOf" || function == "lastIndexOf" || function == "includes")
    return a.empty() ? 0 : k8sTraversalCost(a[0]);
  if (!a.empty()) {
    if (function == "url" || function == "lowerAscii" || function == "upperAscii" ||
        function == "substring" || function == "trim" || function == "quantity" || function == "isQuantity" ||
        function == "semver" || function == "isSemver")
      return ceilCost(size(0) * 0.1);
    if (function == "replace" || function == "split") return ceilCost(size(0) * 2 * 0.1);
    if (function == "join") return ceilCost(static_cast<double>(textSize(result)) * 2 * 0.1);
  }
  if (!a.empty()) {
    if (function == "cidr" || function == "isIP" || function == "isCIDR" ||
        (function == "ip" && overloadId != "cidr_ip"))
      return ceilCost(size(0) * 0.1);
    if (function == "ip.isCanonical") return ceilCost(size(0) * 2 * 0.1);
  }
  if (function == "validate" && a.size() >= 2 && a[0].kind() == VK::NamedFormat) {
    // The string against an estimated regular expression of the format's size.
    return ceilCost((1.0 + size(1)) * 0.1) *
           ceilCost(static_cast<double>(namedFormatMaxRegexSize(a[0].text())) * 0.25);
  }
  if (function == "format.named") return 1;
  if (function == "getScheme" || function == "getHostname" || function == "getHost" ||
      function == "getPort" || function == "getEscapedPath" || function == "getQuery")
    return 1;  // URL accessors
  if (function == "ip" || function == "masked" || function == "prefixLength" || function == "family" ||
      function == "isUnspecified" || function == "isLoopback" || function == "isLinkLocalMulticast" ||
      function == "isLinkLocalUnicast" || function == "isGlobalUnicast")
    return 1;
  if ((function == "containsIP" || function == "containsCIDR") && a.size() >= 2) {
    // Comparing up to the prefix's bytes (twice), plus masking for containsCIDR, plus parsing a string.
    uint64_t cost = ceilCost((size(0) + size(0)) * 0.1);
    if (function == "containsCIDR") cost += ceilCost(size(0) * 0.1) + 1;
    if (overloadId == "cidr_contains_ip_string" || overloadId == "cidr_contains_cidr_string")
      cost += ceilCost(size(1) * 0.1);
    return cost;
  }
  if (function == "_==_" && a.size() == 2 &&
      (a[0].kind() == VK::Quantity || a[0].kind() == VK::Semver || a[0].kind() == VK::IP ||
       a[0].kind() == VK::CIDR || a[0].kind() == VK::URL || a[0].kind() == VK::NamedFormat))
    return 1;  // Kubernetes' types compare at a nominal cost
  if ((function == "find" || function == "findAll") && a.size() >= 2)
    return ceilCost((1.0 + size(0)) * 0.1) * ceilCost(size(1) * 0.25);
  // 3. cel-go's defaults, by overload id (interpreter/runtimecost.go).
  // startsWith / endsWith traverse the prefix or suffix (cel-go v0.29; v0.26 charged the receiver).
  if (overloadId == "starts_with_string" || overloadId == "ends_with_string") return ceilCost(size(1) * 0.1);
  if (overloadId == "string_to_bytes" || overloadId == "bytes_to_string" || overloadId == "string_format" ||
      overloadId == "strings_quote")
    return ceilCost(size(0) * 0.1);
  if (overloadId == "in_list") return textSize(a[1]);
  if (overloadId == "less_string" || overloadId == "greater_string" || overloadId == "less_equals_string" ||
      overloadId == "greater_equals_string" || overloadId == "less_bytes" || overloadId == "greater_bytes" ||
      overloadId == "less_equals_bytes" || overloadId == "greater_equals_bytes" || overloadId == "equals" ||
      overloadId == "not_equals")
    return ceilCost(std::min(size(0), size(1)) * 0.1);
  if (overloadId == "add_string" || overloadId == "add_bytes") return ceilCost((size(0) + size(1)) * 0.1);
  if (overloadId == "matches_string" || overloadId == "matches") return ceilCost((1.0 + size(0)) * 0.1) * ceilCost(size(1) * 0.25);
  if (overloadId == "contains_string") return ceilCost(size(0) * 0.1) * ceilCost(size(1) * 0.1);
  return 1;
}

std::optional<std::string> regexError(const std::string& pattern) {
  std::string error;
  if (compileRegex(pattern, error)) return std::nullopt;
  return error;
}

const FunctionRegistry& functionRegistry() {
  static const FunctionRegistry registry;
  return registry;
}

}  // namespace ks::cel
