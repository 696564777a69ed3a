#pragma once
// CEL's google.protobuf.Timestamp and google.protobuf.Duration as cel-go v0.29.2 implements them on Go's
// time package: parsing (time.Parse with RFC 3339, time.ParseDuration), formatting (RFC 3339 with
// nanoseconds, "1.5s"), overflow-checked arithmetic, and the calendar fields in a time zone.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "pkg/util/result.h"

namespace ks::cel {

// An instant, with the UTC offset it was written with (string() prints it in that offset, as Go keeps a
// time's location).
struct Timestamp {
  int64_t seconds = 0;  // since the Unix epoch
  int32_t nanos = 0;    // [0, 1e9)
  int32_t offset = 0;   // seconds east of UTC

  bool operator==(const Timestamp& o) const { return seconds == o.seconds && nanos == o.nanos; }
  int compare(const Timestamp& o) const;
};

// The range CEL allows: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z.
inline constexpr int64_t kMinUnixSeconds = -62135596800;
inline constexpr int64_t kMaxUnixSeconds = 253402300799;

// Go's time.Parse(time.RFC3339, text) (including what its general parser tolerates: a one-digit hour, a
// comma before the fraction, "+24:00"); nullopt when Go rejects it. The range is not checked here.
std::optional<Timestamp> parseRfc3339(std::string_view text);
// Go's Time.Format(time.RFC3339Nano) in the timestamp's own offset.
std::string formatRfc3339(const Timestamp& t);

// Go's time.ParseDuration; nullopt when Go rejects it.
std::optional<int64_t> parseGoDuration(std::string_view text);
// cel-go's string(duration): the seconds, shortest decimal form, and "s" ("1.5s", "-0.000000001s").
std::string formatDurationSeconds(int64_t nanos);

// Overflow-checked arithmetic, as cel-go's overflow.go: "integer overflow" or "timestamp overflow".
Result<Timestamp> addDuration(const Timestamp& t, int64_t nanos);
Result<int64_t> subtractTimestamps(const Timestamp& a, const Timestamp& b);

// The calendar fields of an instant at a UTC offset.
struct CivilTime {
  int64_t year;
  int month;    // 1..12
  int day;      // 1..31
  int yearDay;  // 1..366
  int weekday;  // 0 = Sunday
  int hour, minute, second;
  int32_t nanos;
};
CivilTime civilTime(const Timestamp& t, int64_t offsetSeconds);

// The UTC offset of a time zone argument of the timestamp getters at instant `t`, as cel-go resolves
// it: a name without ':' is an IANA zone (time.LoadLocation: "" and "UTC", "Local", else the TZif file
// of the system's /usr/share/zoneinfo, where Go looks first), anything else "[+-]hh:mm" read with
// strconv.Atoi. The error is Go's text.
Result<int64_t> zoneOffset(std::string_view zone, const Timestamp& t);

}  // namespace ks::cel
