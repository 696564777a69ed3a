#include "pkg/dra/cel/format.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <vector>

#include "pkg/dra/cel/goquote.h"

namespace ks::cel {
namespace {

FormatFailure failure(std::string message) {
  return FormatFailure{std::move(message), nullptr};
}

// Go's strconv.Atoi error for a precision.
std::optional<std::string> precisionError(std::string_view digits, int64_t& value) {
  const std::string prefix =
      "error while converting precision to integer: strconv.Atoi: parsing \"" + std::string(digits) + "\": ";
  if (digits.empty()) return prefix + "invalid syntax";
  value = 0;
  for (char c : digits) {
    if (__builtin_mul_overflow(value, 10, &value) || __builtin_add_overflow(value, c - '0', &value))
      return prefix + "value out of range";
  }
  return std::nullopt;
}

// printf into a string of the size it needs.
template <typename... A>
std::string sprintf(const char* format, A... args) {
  const int n = std::snprintf(nullptr, 0, format, args...);
  std::string out(static_cast<size_t>(n) + 1, '\0');
  std::snprintf(out.data(), out.size(), format, args...);
  out.pop_back();
  return out;
}

// Thousands separators in the integer part of a plain decimal ("-1234.5" -> "-1,234.5").
std::string groupThousands(const std::string& s) {
  const size_t start = s[0] == '-' ? 1 : 0;
  const size_t end = std::min(s.find('.'), s.size());
  std::string out = s.substr(0, start);
  for (size_t i = start; i < end; ++i) {
    if (i > start && (end - i) % 3 == 0) out += ',';
    out += s[i];
  }
  return out + s.substr(end);
}

std::optional<std::string> nonFinite(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "\xE2\x88\x9E" : "-\xE2\x88\x9E";  // ∞
  return std::nullopt;
}

// x/text's %.<p>f for en: thousands separators, ∞ and NaN, no sign on negative zero. Its precision is
// a byte (mod 256); a non-zero precision that wraps to 0 prints the shortest digits.
std::string localeFixed(double d, int64_t precision) {
  if (auto s = nonFinite(d)) return *s;
  if (d == 0) d = 0;  // -0.0 prints without a sign
  const int64_t p = precision % 256;
  std::string digits;
  if (p == 0 && precision != 0) {
    char buf[400];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::fixed);
    digits.assign(buf, ec == std::errc() ? end : buf);
  } else {
    digits = sprintf("%.*f", static_cast<int>(p), d);
  }
  return groupThousands(digits);
}

std::string superscript(int64_t exponent) {
  static const char* const digits[] = {"\u2070", "\u00B9", "\u00B2", "\u00B3", "\u2074",
                                       "\u2075", "\u2076", "\u2077", "\u2078", "\u2079"};
  std::string text = std::to_string(exponent < 0 ? -exponent : exponent);
  if (text.size() < 2) text.insert(0, "0");
  std::string out = exponent < 0 ? "\u207B" : "";
  for (char c : text) out += digits[c - '0'];
  return out;
}

size_t runeCount(std::string_view s) {
  return static_cast<size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

// x/text's %<w>e for en (cel-go passes the precision as the width): six digits after the point,
// "×10" and a superscript exponent, left-padded to the width (mod 65536) in runes.
std::string localeScientific(double d, int64_t width) {
  std::string out;
  if (auto s = nonFinite(d)) {
    out = *s;
  } else {
    if (d == 0) d = 0;
    const std::string c = sprintf("%.6e", d);
    const size_t e = c.find('e');
    out = c.substr(0, e) + "\u00D710" + superscript(std::stoll(c.substr(e + 1)));
  }
  const auto w = static_cast<size_t>(width % 65536);
  const size_t n = runeCount(out);
  return n < w ? std::string(w - n, ' ') + out : out;
}

std::string signedRadix(bool negative, uint64_t magnitude, int base, bool upper) {
  // A pointer, not a conditional between two arrays (GCC's bounds sanitizer misreads that).
  const char* digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  std::string out;
  do {
    out += digits[magnitude % static_cast<uint64_t>(base)];
    magnitude /= static_cast<uint64_t>(base);
  } while (magnitude != 0);
  if (negative) out += '-';
  std::reverse(out.begin(), out.end());
  return out;
}

FormatOutcome integerRadix(const Value& v, int base, bool upper) {
  if (v.kind() == Value::Kind::Int) {
    const int64_t i = v.asInt();
    const uint64_t magnitude = i < 0 ? 0 - static_cast<uint64_t>(i) : static_cast<uint64_t>(i);
    return signedRadix(i < 0, magnitude, base, upper);
  }
  return signedRadix(false, v.asUint(), base, upper);
}

FormatOutcome hexBytes(std::string_view bytes, bool upper) {
  std::string out;
  for (char c : bytes) out += sprintf(upper ? "%02X" : "%02x", static_cast<unsigned char>(c));
  return out;
}

bool isInteger(const Value& v) {
  return v.kind() == Value::Kind::Int || v.kind() == Value::Kind::Uint;
}

FormatOutcome formatList(const Value& v);
FormatOutcome formatMap(const Value& v);

bool validUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    i += n;
  }
  return true;
}

// cel-go's FormatString.
FormatOutcome formatString(const Value& v) {
  using K = Value::Kind;
  switch (v.kind()) {
    case K::List:
      return formatList(v);
    case K::Map:
      return formatMap(v);
    case K::Int:
      return std::to_string(v.asInt());
    case K::Uint:
      return std::to_string(v.asUint());
    case K::Double:
      return formatDouble(v.asDouble());
    case K::Bool:
      return std::string(v.asBool() ? "true" : "false");
    case K::String:
    case K::Type:
      return v.text();
    case K::Bytes:
      if (!validUtf8(v.text()))
        return failure(
            "could not convert argument \"invalid UTF-8 in bytes, cannot convert to string\" to string");
      return v.text();
    case K::Timestamp:
      return formatRfc3339(v.asTimestamp());
    case K::Duration:
      return formatDurationSeconds(v.asDurationNanos());
    case K::Null:
      return std::string("null");
    default:
      return failure(formatTypeError('s', v.typeName()));
  }
}

// cel-go's quoteForCEL: strings and bytes quoted, non-finite doubles quoted.
std::string quoteForCEL(const Value& v, const std::string& text) {
  if (v.kind() == Value::Kind::String) return goQuote(text);
  if (v.kind() == Value::Kind::Bytes) return "b" + goQuote(text);
  if (v.kind() == Value::Kind::Double && !std::isfinite(v.asDouble())) return goQuote(text);
  return text;
}

// cel-go's clauseForType: how a list element or map value is formatted.
FormatOutcome formatMember(const Value& v) {
  using K = Value::Kind;
  switch (v.kind()) {
    case K::Int:
    case K::Uint:
    case K::String:
    case K::Bytes:
    case K::Bool:
    case K::Null:
    case K::Type:
    case K::List:
    case K::Map:
      return formatString(v);
    case K::Timestamp:
      return "timestamp(" + goQuote(formatRfc3339(v.asTimestamp())) + ")";
    case K::Duration:
      return "duration(" + goQuote(formatDurationSeconds(v.asDurationNanos())) + ")";
    case K::Double: {
      // Go's fmt %.6f: "+Inf", "NaN".
      const double d = v.asDouble();
      if (std::isnan(d)) return std::string("NaN");
      if (std::isinf(d)) return std::string(d > 0 ? "+Inf" : "-Inf");
      return sprintf("%.6f", d);
    }
    default:
      return failure("no formatting function for " + std::string(v.typeName()));
  }
}

FormatOutcome formatList(const Value& v) {
  std::string out = "[";
  const ValueList& items = v.items();
  for (size_t i = 0; i < items.size(); ++i) {
    FormatOutcome member = formatMember(items[i]);
    if (auto* f = std::get_if<FormatFailure>(&member)) return *f;
    out += quoteForCEL(items[i], std::get<std::string>(member));
    if (i + 1 < items.size()) out += ", ";
  }
  return out + "]";
}

FormatOutcome formatMap(const Value& v) {
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const Value& key : v.mapValue().keys()) {
    const Value::Kind k = key.kind();
    if (k != Value::Kind::String && k != Value::Kind::Bool && k != Value::Kind::Int && k != Value::Kind::Uint)
      return failure("no formatting function for map key of type " + std::string(key.typeName()));
    FormatOutcome keyText = formatString(key);
    if (auto* f = std::get_if<FormatFailure>(&keyText)) return *f;
    const Value value = *v.mapValue().find(key);
    FormatOutcome valueText = formatMember(value);
    if (auto* f = std::get_if<FormatFailure>(&valueText)) return *f;
    pairs.emplace_back(quoteForCEL(key, std::get<std::string>(keyText)),
                       quoteForCEL(value, std::get<std::string>(valueText)));
  }
  std::stable_sort(pairs.begin(), pairs.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string out = "{";
  for (size_t i = 0; i < pairs.size(); ++i) {
    out += pairs[i].first + ":" + pairs[i].second;
    if (i + 1 < pairs.size()) out += ", ";
  }
  return out + "}";
}

// %f and %e take a double, or one of the strings NaN, Infinity and -Infinity.
std::optional<double> floatArgument(const Value& v) {
  if (v.kind() == Value::Kind::Double) return v.asDouble();
  if (v.kind() != Value::Kind::String) return std::nullopt;
  if (v.text() == "NaN") return std::nan("");
  if (v.text() == "Infinity") return HUGE_VAL;
  if (v.text() == "-Infinity") return -HUGE_VAL;
  return std::nullopt;
}

}  // namespace

std::string formatTypeError(char verb, std::string_view typeName) {
  const std::string given = ", was given " + std::string(typeName);
  switch (verb) {
    case 'd':
      return "decimal clause can only be used on integers" + given;
    case 'f':
      return "fixed-point clause can only be used on doubles" + given;
    case 'e':
      return "scientific clause can only be used on doubles" + given;
    case 'b':
      return "only integers and bools can be formatted as binary" + given;
    case 'x':
    case 'X':
      return "only integers, byte buffers, and strings can be formatted as hex" + given;
    case 'o':
      return "octal clause can only be used on integers" + given;
    default:
      return "string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, "
             "durations, and timestamps" +
             given;
  }
}

FormatOutcome formatClause(const Value& v, char verb, std::optional<int64_t> precision) {
  using K = Value::Kind;
  const auto typeError = [&] { return failure(formatTypeError(verb, v.typeName())); };
  switch (verb) {
    case 's':
      return formatString(v);
    case 'd':
      if (!isInteger(v)) return typeError();
      return integerRadix(v, 10, false);
    case 'f':
    case 'e': {
      auto d = floatArgument(v);
      if (!d) return typeError();
      const int64_t p = precision.value_or(6);
      return verb == 'f' ? localeFixed(*d, p) : localeScientific(*d, p);
    }
    case 'b':
      if (v.kind() == K::Bool) return std::string(v.asBool() ? "1" : "0");
      if (!isInteger(v)) return typeError();
      return integerRadix(v, 2, false);
    case 'x':
    case 'X':
      if (v.kind() == K::String || v.kind() == K::Bytes) return hexBytes(v.text(), verb == 'X');
      if (!isInteger(v)) return typeError();
      return integerRadix(v, 16, verb == 'X');
    case 'o':
      if (!isInteger(v)) return typeError();
      return integerRadix(v, 8, false);
    default:
      return typeError();
  }
}

FormatOutcome interpolateFormat(std::string_view format, size_t argCount, bool runtime,
                                const ClauseFormatter& clause, size_t* clausesSeen) {
  std::string out;
  size_t argIndex = 0;
  for (size_t i = 0; i < format.size();) {
    if (format[i] != '%') {
      out += format[i++];
      continue;
    }
    if (i + 1 < format.size() && format[i + 1] == '%') {
      out += '%';
      i += 2;
      continue;
    }
    if (clausesSeen) ++*clausesSeen;
    const std::string outOfRange = "index " + std::to_string(argIndex) + " out of range";
    if (runtime && argIndex >= argCount) return failure(outOfRange);
    if (i + 1 >= format.size()) return failure("unexpected end of string");
    if (argIndex >= argCount) return failure(outOfRange);
    // The clause: an optional ".<digits>" precision, then the verb.
    size_t j = i + 1;
    std::optional<int64_t> precision;
    const std::string clauseError = "could not parse formatting clause: ";
    if (format[j] == '.') {
      size_t k = j + 1;
      while (k < format.size() && format[k] >= '0' && format[k] <= '9') ++k;
      if (k >= format.size())
        return failure(clauseError +
                       "error while parsing precision: could not find end of precision specifier");
      int64_t p = 0;
      if (auto err = precisionError(format.substr(j + 1, k - j - 1), p))
        return failure(clauseError + "error while parsing precision: " + *err);
      precision = p;
      j = k;
    }
    const char verb = format[j];
    if (std::string_view("sdfebxXo").find(verb) == std::string_view::npos) {
      // Go prints the byte as a rune (%c).
      const auto b = static_cast<unsigned char>(verb);
      const std::string rune =
          b < 0x80 ? std::string(1, verb)
                   : std::string{static_cast<char>(0xC0 | (b >> 6)), static_cast<char>(0x80 | (b & 0x3F))};
      return failure(clauseError + "unrecognized formatting clause \"" + rune + "\"");
    }
    FormatOutcome text = clause(argIndex, verb, precision);
    if (auto* f = std::get_if<FormatFailure>(&text)) {
      f->message = "error during formatting: " + f->message;
      return *f;
    }
    out += std::get<std::string>(text);
    i = j + 1;
    ++argIndex;
  }
  return out;
}

}  // namespace ks::cel
