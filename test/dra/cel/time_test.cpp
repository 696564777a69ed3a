// Timestamps and durations as Go's time package parses and prints them (what cel-go builds on).

#include "pkg/dra/cel/time.h"

#include <gtest/gtest.h>

namespace ks::cel {
namespace {

std::string roundTrip(std::string_view text) {
  auto t = parseRfc3339(text);
  return t ? formatRfc3339(*t) : "invalid";
}

TEST(CelTimeTest, ParsesRfc3339AsGoDoes) {
  EXPECT_EQ(roundTrip("2024-02-29T23:59:59Z"), "2024-02-29T23:59:59Z");
  EXPECT_EQ(roundTrip("2023-02-29T00:00:00Z"), "invalid");  // not a leap year
  EXPECT_EQ(roundTrip("2024-01-01T00:00:00.120000000+01:30"), "2024-01-01T00:00:00.12+01:30");
  EXPECT_EQ(roundTrip("2024-01-01T00:00:00+00:00"), "2024-01-01T00:00:00Z");
  // Go's general parser: a one-digit hour, a comma before the fraction, fractions past nanoseconds.
  EXPECT_EQ(roundTrip("2024-01-01T1:02:03Z"), "2024-01-01T01:02:03Z");
  EXPECT_EQ(roundTrip("2024-01-01T01:02:03,5Z"), "2024-01-01T01:02:03.5Z");
  EXPECT_EQ(roundTrip("2024-01-01T01:02:03.1234567891Z"), "2024-01-01T01:02:03.123456789Z");
  EXPECT_EQ(roundTrip("2024-01-01 01:02:03Z"), "invalid");
  EXPECT_EQ(roundTrip("2024-01-01T01:02:03z"), "invalid");
  EXPECT_EQ(roundTrip("2024-01-01T24:00:00Z"), "invalid");
  EXPECT_EQ(roundTrip("2024-1-01T00:00:00Z"), "invalid");
  auto epoch = parseRfc3339("1970-01-01T01:00:00+01:00");
  ASSERT_TRUE(epoch);
  EXPECT_EQ(epoch->seconds, 0);
}

TEST(CelTimeTest, ParsesDurationsAsGoDoes) {
  EXPECT_EQ(parseGoDuration("1h30m"), int64_t{5400} * 1'000'000'000);
  EXPECT_EQ(parseGoDuration("-1.5s"), int64_t{-1'500'000'000});
  EXPECT_EQ(parseGoDuration(".5us"), int64_t{500});
  EXPECT_EQ(parseGoDuration("1\xC2\xB5s"), int64_t{1000});
  EXPECT_EQ(parseGoDuration("0"), int64_t{0});
  EXPECT_FALSE(parseGoDuration("1"));
  EXPECT_FALSE(parseGoDuration(""));
  EXPECT_FALSE(parseGoDuration("1d"));
  EXPECT_FALSE(parseGoDuration("3000000h"));
  EXPECT_EQ(formatDurationSeconds(1'500'000'000), "1.5s");
  EXPECT_EQ(formatDurationSeconds(-1), "-0.000000001s");
  EXPECT_EQ(formatDurationSeconds(0), "0s");
}

TEST(CelTimeTest, CalendarFieldsAndZones) {
  const Timestamp t = *parseRfc3339("2023-01-01T05:30:00Z");
  const CivilTime utc = civilTime(t, 0);
  EXPECT_EQ(utc.weekday, 0);  // a Sunday
  EXPECT_EQ(utc.yearDay, 1);
  auto offset = zoneOffset("-08:00", t);
  ASSERT_TRUE(offset.ok());
  const CivilTime pacific = civilTime(t, *offset);
  EXPECT_EQ(pacific.year, 2022);
  EXPECT_EQ(pacific.day, 31);
  EXPECT_EQ(zoneOffset("x:00", t).error().message(), "strconv.Atoi: parsing \"x\": invalid syntax");
  EXPECT_EQ(zoneOffset("../x", t).error().message(), "time: invalid location name");
  EXPECT_EQ(zoneOffset("No/Such_Zone", t).error().message(), "unknown time zone No/Such_Zone");
  // IANA zones from the system's zoneinfo, with the POSIX rule past the last transition.
  EXPECT_EQ(*zoneOffset("Europe/Berlin", *parseRfc3339("2024-07-01T00:00:00Z")), 7200);
  EXPECT_EQ(*zoneOffset("Europe/Berlin", *parseRfc3339("2024-01-01T00:00:00Z")), 3600);
  EXPECT_EQ(*zoneOffset("America/New_York", *parseRfc3339("2095-07-01T00:00:00Z")), -4 * 3600);
  EXPECT_EQ(*zoneOffset("Australia/Sydney", *parseRfc3339("2095-01-01T00:00:00Z")), 11 * 3600);
}

TEST(CelTimeTest, ArithmeticOverflows) {
  const Timestamp max = *parseRfc3339("9999-12-31T23:59:59Z");
  EXPECT_EQ(addDuration(max, 1'000'000'000).error().message(), "timestamp overflow");
  EXPECT_TRUE(addDuration(max, 999'999'999).ok());
  const Timestamp min = *parseRfc3339("0001-01-01T00:00:00Z");
  EXPECT_EQ(subtractTimestamps(max, min).error().message(), "integer overflow");
}

}  // namespace
}  // namespace ks::cel
