// cel-go's standard timestamp and duration functions. Every call costs 1 (cel-go's default).

#include <cmath>
#include <limits>

#include "pkg/dra/cel/libraries.h"
#include "pkg/dra/cel/time.h"

namespace ks::cel {
namespace {

using VK = Value::Kind;
using Args = std::span<const Value>;

constexpr int64_t kNanosPerSecond = 1'000'000'000;

Value conversionError(std::string_view from, std::string_view to) {
  return Value::error("type conversion error from '" + std::string(from) + "' to '" + std::string(to) + "'");
}

Value toTimestamp(Args a) {
  const Value& v = a[0];
  switch (v.kind()) {
    case VK::Timestamp:
      return v;
    case VK::Int:
      if (v.asInt() < kMinUnixSeconds || v.asInt() > kMaxUnixSeconds)
        return Value::error("timestamp overflow");
      return Value::timestamp(Timestamp{v.asInt(), 0, 0});
    case VK::String: {
      auto t = parseRfc3339(v.text());
      if (!t) return conversionError("string", "google.protobuf.Timestamp");
      if (t->seconds < kMinUnixSeconds || t->seconds > kMaxUnixSeconds)
        return Value::error("timestamp overflow");
      return Value::timestamp(*t);
    }
    default:
      return conversionError(v.typeName(), "google.protobuf.Timestamp");
  }
}

Value toDuration(Args a) {
  const Value& v = a[0];
  if (v.kind() == VK::Duration) return v;
  if (v.kind() == VK::String) {
    auto d = parseGoDuration(v.text());
    if (!d) return conversionError("string", "google.protobuf.Duration");
    return Value::duration(*d);
  }
  // dyn(x) of another type.
  return conversionError(v.typeName(), "google.protobuf.Duration");
}

Value timeToInt(Args a) {
  if (a[0].kind() == VK::Duration) return Value::integer(a[0].asDurationNanos());
  return Value::integer(a[0].asTimestamp().seconds);
}

Value timeToString(Args a) {
  if (a[0].kind() == VK::Duration) return Value::string(formatDurationSeconds(a[0].asDurationNanos()));
  return Value::string(formatRfc3339(a[0].asTimestamp()));
}

Value fromResult(const Result<Timestamp>& r) {
  return r.ok() ? Value::timestamp(*r) : Value::error(r.error().message());
}

Value addTimestampDuration(Args a) {
  const bool timestampFirst = a[0].kind() == VK::Timestamp;
  const Value& t = timestampFirst ? a[0] : a[1];
  const Value& d = timestampFirst ? a[1] : a[0];
  return fromResult(addDuration(t.asTimestamp(), d.asDurationNanos()));
}

Value addDurations(Args a) {
  int64_t out = 0;
  if (__builtin_add_overflow(a[0].asDurationNanos(), a[1].asDurationNanos(), &out))
    return Value::error("integer overflow");
  return Value::duration(out);
}

Value subtractDurations(Args a) {
  int64_t out = 0;
  if (__builtin_sub_overflow(a[0].asDurationNanos(), a[1].asDurationNanos(), &out))
    return Value::error("integer overflow");
  return Value::duration(out);
}

Value subtractTimestampDuration(Args a) {
  // cel-go negates the duration first, which overflows for the most negative one.
  const int64_t d = a[1].asDurationNanos();
  if (d == std::numeric_limits<int64_t>::min()) return Value::error("integer overflow");
  return fromResult(addDuration(a[0].asTimestamp(), -d));
}

Value subtractTimestampsFn(Args a) {
  auto d = subtractTimestamps(a[0].asTimestamp(), a[1].asTimestamp());
  return d.ok() ? Value::duration(*d) : Value::error(d.error().message());
}

// A calendar field of a timestamp, in UTC or in the zone of the second argument.
template <int64_t (*field)(const CivilTime&)>
Value timestampField(Args a) {
  const Timestamp& t = a[0].asTimestamp();
  int64_t offset = 0;
  if (a.size() == 2) {
    auto o = zoneOffset(a[1].text(), t);
    if (!o.ok()) return Value::error(o.error().message());
    offset = *o;
  }
  return Value::integer(field(civilTime(t, offset)));
}

int64_t fullYear(const CivilTime& c) {
  return c.year;
}
int64_t month0(const CivilTime& c) {
  return c.month - 1;
}
int64_t dayOfYear0(const CivilTime& c) {
  return c.yearDay - 1;
}
int64_t dayOfMonth0(const CivilTime& c) {
  return c.day - 1;
}
int64_t dayOfMonth1(const CivilTime& c) {
  return c.day;
}
int64_t dayOfWeek(const CivilTime& c) {
  return c.weekday;
}
int64_t hours(const CivilTime& c) {
  return c.hour;
}
int64_t minutes(const CivilTime& c) {
  return c.minute;
}
int64_t seconds(const CivilTime& c) {
  return c.second;
}
int64_t milliseconds(const CivilTime& c) {
  return c.nanos / 1'000'000;
}

// A duration in whole units, as Go's Duration.Hours()/Minutes()/Seconds() (a double of whole units plus
// the remainder's fraction) truncated to an int.
template <int64_t unit>
Value durationIn(Args a) {
  const int64_t d = a[0].asDurationNanos();
  const double units =
      static_cast<double>(d / unit) + static_cast<double>(d % unit) / static_cast<double>(unit);
  return Value::integer(static_cast<int64_t>(units));
}

Value durationMilliseconds(Args a) {
  return Value::integer(a[0].asDurationNanos() / 1'000'000);
}

struct TimestampGetter {
  const char* function;
  const char* id;  // the overload with a time zone appends cel-go's suffix to this
  const char* tzId;
  FunctionImpl impl;
};

}  // namespace

void defineTimeLibrary(FunctionRegistry& r) {
  constexpr bool G = false, M = true;
  constexpr const char* kTs = "google.protobuf.Timestamp";
  constexpr const char* kDur = "google.protobuf.Duration";

  r.define("timestamp", "timestamp_to_timestamp", G, {kTs}, kTs, toTimestamp);
  r.define("timestamp", "int64_to_timestamp", G, {"int"}, kTs, toTimestamp);
  r.define("timestamp", "string_to_timestamp", G, {"string"}, kTs, toTimestamp);
  r.define("duration", "duration_to_duration", G, {kDur}, kDur, toDuration);
  r.define("duration", "string_to_duration", G, {"string"}, kDur, toDuration);
  r.define("int", "duration_to_int64", G, {kDur}, "int", timeToInt);
  r.define("int", "timestamp_to_int64", G, {kTs}, "int", timeToInt);
  r.define("string", "duration_to_string", G, {kDur}, "string", timeToString);
  r.define("string", "timestamp_to_string", G, {kTs}, "string", timeToString);

  r.define("_+_", "add_duration_duration", G, {kDur, kDur}, kDur, addDurations);
  r.define("_+_", "add_duration_timestamp", G, {kDur, kTs}, kTs, addTimestampDuration);
  r.define("_+_", "add_timestamp_duration", G, {kTs, kDur}, kTs, addTimestampDuration);
  r.define("_-_", "subtract_duration_duration", G, {kDur, kDur}, kDur, subtractDurations);
  r.define("_-_", "subtract_timestamp_duration", G, {kTs, kDur}, kTs, subtractTimestampDuration);
  r.define("_-_", "subtract_timestamp_timestamp", G, {kTs, kTs}, kDur, subtractTimestampsFn);

  static const TimestampGetter getters[] = {
      {"getFullYear", "timestamp_to_year", "timestamp_to_year_with_tz", timestampField<fullYear>},
      {"getMonth", "timestamp_to_month", "timestamp_to_month_with_tz", timestampField<month0>},
      {"getDayOfYear", "timestamp_to_day_of_year", "timestamp_to_day_of_year_with_tz",
       timestampField<dayOfYear0>},
      {"getDayOfMonth", "timestamp_to_day_of_month", "timestamp_to_day_of_month_with_tz",
       timestampField<dayOfMonth0>},
      {"getDate", "timestamp_to_day_of_month_1_based", "timestamp_to_day_of_month_1_based_with_tz",
       timestampField<dayOfMonth1>},
      {"getDayOfWeek", "timestamp_to_day_of_week", "timestamp_to_day_of_week_with_tz",
       timestampField<dayOfWeek>},
      {"getHours", "timestamp_to_hours", "timestamp_to_hours_with_tz", timestampField<hours>},
      {"getMinutes", "timestamp_to_minutes", "timestamp_to_minutes_with_tz", timestampField<minutes>},
      {"getSeconds", "timestamp_to_seconds", "timestamp_to_seconds_tz", timestampField<seconds>},
      {"getMilliseconds", "timestamp_to_milliseconds", "timestamp_to_milliseconds_with_tz",
       timestampField<milliseconds>},
  };
  for (const TimestampGetter& g : getters) {
    r.define(g.function, g.id, M, {kTs}, "int", g.impl);
    r.define(g.function, g.tzId, M, {kTs, "string"}, "int", g.impl);
  }
  r.define("getHours", "duration_to_hours", M, {kDur}, "int", durationIn<3600 * kNanosPerSecond>);
  r.define("getMinutes", "duration_to_minutes", M, {kDur}, "int", durationIn<60 * kNanosPerSecond>);
  r.define("getSeconds", "duration_to_seconds", M, {kDur}, "int", durationIn<kNanosPerSecond>);
  r.define("getMilliseconds", "duration_to_milliseconds", M, {kDur}, "int", durationMilliseconds);
}

}  // namespace ks::cel
