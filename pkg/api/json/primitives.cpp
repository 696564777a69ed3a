// Primitive JSON readers/writers (strings, integers, quantities, IntOrString, times), the RFC 3339
// time codec and the text -> JSON entry point.

#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <limits>
#include <string>
#include <string_view>

#include "pkg/api/json/codec.h"
#include "pkg/api/json/internal.h"
#include "pkg/util/strings.h"

namespace ks::api {

namespace {

using namespace std::chrono;

// Go's time.Parse layout RFC3339, split into its elements for Go-like error messages.
constexpr std::string_view kRFC3339 = "2006-01-02T15:04:05Z07:00";

std::string goQuote(std::string_view s) {
  return ks::quote(s);
}

Error timeLayoutError(std::string_view value, std::string_view rest, std::string_view elem) {
  return Error("parsing time " + goQuote(value) + " as " + goQuote(kRFC3339) + ": cannot parse " +
               goQuote(rest) + " as " + goQuote(elem));
}

Error timeRangeError(std::string_view value, std::string_view what) {
  return Error("parsing time " + goQuote(value) + ": " + std::string(what) + " out of range");
}

bool isDigit(char c) {
  return c >= '0' && c <= '9';
}

// Reads exactly n digits from s at pos.
bool digits(std::string_view s, size_t& pos, size_t n, int& out) {
  if (pos + n > s.size()) return false;
  int v = 0;
  for (size_t i = 0; i < n; ++i) {
    char c = s[pos + i];
    if (!isDigit(c)) return false;
    v = v * 10 + (c - '0');
  }
  out = v;
  pos += n;
  return true;
}

std::string formatWithFraction(Time t, bool micro) {
  auto secs = floor<seconds>(t);
  auto day = floor<days>(secs);
  year_month_day ymd{day};
  hh_mm_ss<seconds> hms{secs - day};
  char buf[64];
  int y = static_cast<int>(ymd.year());
  int n =
      std::snprintf(buf, sizeof(buf), "%04d-%02u-%02uT%02d:%02d:%02d", y, static_cast<unsigned>(ymd.month()),
                    static_cast<unsigned>(ymd.day()), static_cast<int>(hms.hours().count()),
                    static_cast<int>(hms.minutes().count()), static_cast<int>(hms.seconds().count()));
  std::string out(buf, static_cast<size_t>(n));
  if (micro) {
    auto us = duration_cast<microseconds>(t - secs).count();
    std::snprintf(buf, sizeof(buf), ".%06lld", static_cast<long long>(us));
    out += buf;
  }
  out += 'Z';
  return out;
}

}  // namespace

std::string formatTime(Time t) {
  return formatWithFraction(t, false);
}

std::string formatMicroTime(Time t) {
  return formatWithFraction(t, true);
}

Result<Time> parseTime(std::string_view value) {
  std::string_view s = value;
  size_t pos = 0;
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  auto rest = [&] { return s.substr(pos); };
  auto expect = [&](char c) {
    if (pos < s.size() && s[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  };
  if (!digits(s, pos, 4, year)) return timeLayoutError(value, rest(), "2006");
  if (!expect('-')) return timeLayoutError(value, rest(), "-");
  if (!digits(s, pos, 2, month)) return timeLayoutError(value, rest(), "01");
  if (!expect('-')) return timeLayoutError(value, rest(), "-");
  if (!digits(s, pos, 2, day)) return timeLayoutError(value, rest(), "02");
  if (!expect('T')) return timeLayoutError(value, rest(), "T");
  if (!digits(s, pos, 2, hour)) return timeLayoutError(value, rest(), "15");
  if (!expect(':')) return timeLayoutError(value, rest(), ":");
  if (!digits(s, pos, 2, minute)) return timeLayoutError(value, rest(), "04");
  if (!expect(':')) return timeLayoutError(value, rest(), ":");
  if (!digits(s, pos, 2, second)) return timeLayoutError(value, rest(), "05");
  int64_t nanos = 0;
  if (pos < s.size() && (s[pos] == '.' || s[pos] == ',') && pos + 1 < s.size() && isDigit(s[pos + 1])) {
    ++pos;
    int64_t scale = 100000000;
    while (pos < s.size() && isDigit(s[pos])) {
      nanos += (s[pos] - '0') * scale;
      scale /= 10;
      ++pos;
    }
  }
  int offsetSeconds = 0;
  if (expect('Z')) {
    // UTC
  } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    int sign = s[pos] == '-' ? -1 : 1;
    size_t start = pos++;
    int oh = 0, om = 0;
    if (!digits(s, pos, 2, oh) || !expect(':') || !digits(s, pos, 2, om)) {
      pos = start;
      return timeLayoutError(value, rest(), "Z07:00");
    }
    if (oh > 23) return timeRangeError(value, "time zone offset hour");
    if (om > 59) return timeRangeError(value, "time zone offset minute");
    offsetSeconds = sign * (oh * 3600 + om * 60);
  } else {
    return timeLayoutError(value, rest(), "Z07:00");
  }
  if (pos != s.size()) return Error("parsing time " + goQuote(value) + ": extra text: " + goQuote(rest()));
  if (month < 1 || month > 12) return timeRangeError(value, "month");
  year_month_day ymd{std::chrono::year{year}, std::chrono::month{static_cast<unsigned>(month)},
                     std::chrono::day{static_cast<unsigned>(day)}};
  if (day < 1 || !ymd.ok()) return timeRangeError(value, "day");
  if (hour > 23) return timeRangeError(value, "hour");
  if (minute > 59) return timeRangeError(value, "minute");
  if (second > 59) return timeRangeError(value, "second");
  int64_t secs = static_cast<int64_t>(sys_days{ymd}.time_since_epoch().count()) * 86400 + hour * 3600 +
                 minute * 60 + second - offsetSeconds;
  // system_clock counts nanoseconds in an int64: about years 1678..2261.
  constexpr int64_t kMaxSeconds = std::numeric_limits<int64_t>::max() / 1000000000 - 1;
  if (secs > kMaxSeconds || secs < -kMaxSeconds) return timeRangeError(value, "year");
  return Time{} + duration_cast<system_clock::duration>(seconds{secs} + nanoseconds{nanos});
}

namespace jsoncodec {

std::string_view typeName(const Json& j) {
  switch (j.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::object:
      return "object";
    case Json::value_t::array:
      return "array";
    case Json::value_t::string:
      return "string";
    case Json::value_t::boolean:
      return "boolean";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
    case Json::value_t::number_float:
      return "number";
    default:
      return "unknown";
  }
}

namespace {

std::string numberText(const Json& j) {
  if (j.is_number_unsigned()) return std::to_string(j.get<uint64_t>());
  if (j.is_number_integer()) return std::to_string(j.get<int64_t>());
  return j.dump();  // shortest round-trip form of the double
}

bool readInteger(DecodeContext& ctx, const Json& j, int64_t min, int64_t max, const char* typeLabel,
                 int64_t& out) {
  if (j.is_number_unsigned()) {
    uint64_t v = j.get<uint64_t>();
    if (v > static_cast<uint64_t>(max)) {
      return ctx.fail("value " + std::to_string(v) + " overflows " + typeLabel);
    }
    out = static_cast<int64_t>(v);
    return true;
  }
  if (j.is_number_integer()) {
    int64_t v = j.get<int64_t>();
    if (v < min || v > max) return ctx.fail("value " + std::to_string(v) + " overflows " + typeLabel);
    out = v;
    return true;
  }
  if (j.is_number_float()) {
    double d = j.get<double>();
    // Integer literals beyond 64 bits arrive as doubles.
    if (std::isfinite(d) && std::trunc(d) == d && std::fabs(d) >= 9.2e18) {
      return ctx.fail("value " + numberText(j) + " overflows " + typeLabel);
    }
    return ctx.fail("expected an integer, got number " + numberText(j));
  }
  return ctx.fail(std::string("expected an integer, got ").append(typeName(j)));
}

std::string_view trimSpace(std::string_view s) {
  constexpr std::string_view kSpace = " \t\n\r\v\f";
  size_t b = s.find_first_not_of(kSpace);
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(kSpace);
  return s.substr(b, e - b + 1);
}

bool readTimeString(DecodeContext& ctx, const Json& j, Time& out) {
  if (!j.is_string()) return ctx.fail(std::string("expected a time string, got ").append(typeName(j)));
  auto t = parseTime(j.get_ref<const std::string&>());
  if (!t) return ctx.fail(t.error().message());
  out = *t;
  return true;
}

}  // namespace

bool read(DecodeContext& ctx, const Json& j, std::string& out) {
  if (!j.is_string()) return ctx.fail(std::string("expected a string, got ").append(typeName(j)));
  out = j.get_ref<const std::string&>();
  return true;
}

bool read(DecodeContext& ctx, const Json& j, bool& out) {
  if (!j.is_boolean()) return ctx.fail(std::string("expected a boolean, got ").append(typeName(j)));
  out = j.get<bool>();
  return true;
}

bool read(DecodeContext& ctx, const Json& j, int32_t& out) {
  int64_t v = 0;
  if (!readInteger(ctx, j, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max(), "int32",
                   v)) {
    return false;
  }
  out = static_cast<int32_t>(v);
  return true;
}

bool read(DecodeContext& ctx, const Json& j, int64_t& out) {
  return readInteger(ctx, j, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(),
                     "int64", out);
}

// As resource.Quantity's UnmarshalJSON: a string (trimmed) or a bare JSON number.
bool read(DecodeContext& ctx, const Json& j, Quantity& out) {
  std::string text;
  if (j.is_string()) {
    text = trimSpace(j.get_ref<const std::string&>());
  } else if (j.is_number()) {
    text = numberText(j);
  } else {
    return ctx.fail(std::string("expected a quantity string, got ").append(typeName(j)));
  }
  auto q = Quantity::parse(text);
  if (!q) return ctx.fail(q.error().message());
  out = std::move(*q);
  return true;
}

// As intstr.IntOrString's UnmarshalJSON: a JSON string, else an int32.
bool read(DecodeContext& ctx, const Json& j, IntOrString& out) {
  if (j.is_string()) {
    out = IntOrString{true, 0, j.get<std::string>()};
    return true;
  }
  if (!j.is_number()) {
    return ctx.fail(std::string("expected an integer or string, got ").append(typeName(j)));
  }
  int32_t v = 0;
  if (!read(ctx, j, v)) return false;
  out = IntOrString{false, v, {}};
  return true;
}

bool read(DecodeContext& ctx, const Json& j, Time& out) {
  if (!readTimeString(ctx, j, out)) return false;
  out = floor<std::chrono::seconds>(out);
  return true;
}

bool readMicroTime(DecodeContext& ctx, const Json& j, Time& out) {
  if (j.is_null()) return true;
  if (!readTimeString(ctx, j, out)) return false;
  out = floor<std::chrono::microseconds>(out);
  return true;
}

Json write(const Quantity& q) {
  return q.toString();
}

Json write(const IntOrString& v) {
  if (v.isString) return v.strVal;
  return v.intVal;
}

Json write(const Time& t) {
  return formatTime(t);
}

Json writeMicroTime(const Time& t) {
  return formatMicroTime(t);
}

Result<Json> parseText(std::string_view text) {
  try {
    return Json::parse(text.begin(), text.end());
  } catch (const Json::parse_error& e) {
    // "[json.exception.parse_error.101] parse error at line 1, column 7: syntax error ..."
    std::string_view what = e.what();
    if (auto p = what.find("] "); p != std::string_view::npos && what.substr(0, 1) == "[") {
      what.remove_prefix(p + 2);
    }
    return Error("invalid JSON: " + std::string(what));
  } catch (const std::exception& e) {
    return Error(std::string("invalid JSON: ") + e.what());
  }
}

}  // namespace jsoncodec
}  // namespace ks::api
