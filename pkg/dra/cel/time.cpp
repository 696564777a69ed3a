#include "pkg/dra/cel/time.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <vector>

#include "pkg/util/go_duration.h"

namespace ks::cel {
namespace {

constexpr int64_t kNanosPerSecond = 1'000'000'000;

bool isDigit(std::string_view s, size_t i) {
  return i < s.size() && s[i] >= '0' && s[i] <= '9';
}

// Go's getnum: one or two digits (exactly two when `fixed`).
std::optional<int> twoDigits(std::string_view& s, bool fixed) {
  if (!isDigit(s, 0)) return std::nullopt;
  if (!isDigit(s, 1)) {
    if (fixed) return std::nullopt;
    const int v = s[0] - '0';
    s.remove_prefix(1);
    return v;
  }
  const int v = (s[0] - '0') * 10 + (s[1] - '0');
  s.remove_prefix(2);
  return v;
}

bool skipLiteral(std::string_view& s, char c) {
  if (s.empty() || s[0] != c) return false;
  s.remove_prefix(1);
  return true;
}

bool isLeap(int64_t year) {
  return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
}

int daysIn(int month, int64_t year) {
  static constexpr int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && isLeap(year) ? 29 : days[month - 1];
}

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
int64_t daysFromCivil(int64_t y, int m, int d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

int64_t floorDiv(int64_t a, int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}

// Go's parseNanoseconds: the digits after the separator, at most nine of them count.
int32_t fractionNanos(std::string_view digits) {
  int32_t ns = 0;
  for (size_t i = 0; i < 9; ++i) ns = ns * 10 + (i < digits.size() ? digits[i] - '0' : 0);
  return ns;
}

void appendTwoDigits(std::string& out, int64_t v) {
  out += static_cast<char>('0' + v / 10);
  out += static_cast<char>('0' + v % 10);
}

// Go's strconv.Atoi, with its error text.
Result<int64_t> goAtoi(std::string_view s) {
  const std::string quoted = "\"" + std::string(s) + "\"";
  std::string_view digits = s;
  bool negative = false;
  if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) {
    negative = digits[0] == '-';
    digits.remove_prefix(1);
  }
  if (digits.empty()) return Error("strconv.Atoi: parsing " + quoted + ": invalid syntax");
  uint64_t v = 0;
  bool overflow = false;
  for (char c : digits) {
    if (c < '0' || c > '9') return Error("strconv.Atoi: parsing " + quoted + ": invalid syntax");
    if (v > (uint64_t{1} << 63) / 10) overflow = true;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  const uint64_t limit = negative ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
  if (overflow || v > limit) return Error("strconv.Atoi: parsing " + quoted + ": value out of range");
  return negative ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
}

}  // namespace

int Timestamp::compare(const Timestamp& o) const {
  if (seconds != o.seconds) return seconds < o.seconds ? -1 : 1;
  if (nanos != o.nanos) return nanos < o.nanos ? -1 : 1;
  return 0;
}

std::optional<Timestamp> parseRfc3339(std::string_view s) {
  // The layout 2006-01-02T15:04:05Z07:00 as Go's general parser reads it (its fast path accepts a
  // subset with the same results).
  if (s.size() < 4 || !isDigit(s, 0)) return std::nullopt;
  int64_t year = 0;
  for (size_t i = 0; i < 4; ++i) {
    if (!isDigit(s, i)) return std::nullopt;
    year = year * 10 + (s[i] - '0');
  }
  s.remove_prefix(4);
  if (!skipLiteral(s, '-')) return std::nullopt;
  auto month = twoDigits(s, true);
  if (!month || *month < 1 || *month > 12 || !skipLiteral(s, '-')) return std::nullopt;
  auto day = twoDigits(s, true);
  if (!day || !skipLiteral(s, 'T')) return std::nullopt;
  auto hour = twoDigits(s, false);
  if (!hour || *hour >= 24 || !skipLiteral(s, ':')) return std::nullopt;
  auto minute = twoDigits(s, true);
  if (!minute || *minute >= 60 || !skipLiteral(s, ':')) return std::nullopt;
  auto second = twoDigits(s, true);
  if (!second || *second >= 60) return std::nullopt;
  int32_t nanos = 0;
  if (s.size() >= 2 && (s[0] == '.' || s[0] == ',') && isDigit(s, 1)) {
    size_t n = 1;
    while (isDigit(s, n)) ++n;
    nanos = fractionNanos(s.substr(1, n - 1));
    s.remove_prefix(n);
  }
  int32_t offset = 0;
  if (!s.empty() && s[0] == 'Z') {
    s.remove_prefix(1);
  } else {
    if (s.size() < 6 || s[3] != ':') return std::nullopt;
    std::string_view hh = s.substr(1, 2), mm = s.substr(4, 2);
    auto oh = twoDigits(hh, true);
    auto om = twoDigits(mm, true);
    if (!oh || !om || *oh > 24 || *om > 60 || (s[0] != '+' && s[0] != '-')) return std::nullopt;
    offset = (*oh * 60 + *om) * 60 * (s[0] == '-' ? -1 : 1);
    s.remove_prefix(6);
  }
  if (!s.empty() || *day < 1 || *day > daysIn(*month, year)) return std::nullopt;
  Timestamp t;
  t.seconds = daysFromCivil(year, *month, *day) * 86400 + *hour * 3600 + *minute * 60 + *second - offset;
  t.nanos = nanos;
  t.offset = offset;
  return t;
}

CivilTime civilTime(const Timestamp& t, int64_t offsetSeconds) {
  const int64_t local = t.seconds + offsetSeconds;
  const int64_t days = floorDiv(local, 86400);
  const int64_t secs = local - days * 86400;
  // Hinnant's civil_from_days.
  const int64_t z = days + 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  CivilTime c{};
  c.day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  c.month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  c.year = yoe + era * 400 + (c.month <= 2);
  c.yearDay = static_cast<int>(days - daysFromCivil(c.year, 1, 1) + 1);
  c.weekday = static_cast<int>(((days % 7) + 11) % 7);  // 1970-01-01 was a Thursday
  c.hour = static_cast<int>(secs / 3600);
  c.minute = static_cast<int>(secs / 60 % 60);
  c.second = static_cast<int>(secs % 60);
  c.nanos = t.nanos;
  return c;
}

std::string formatRfc3339(const Timestamp& t) {
  const CivilTime c = civilTime(t, t.offset);
  std::string out;
  // Years of CEL's range have four digits.
  out += std::to_string(c.year);
  out += '-';
  appendTwoDigits(out, c.month);
  out += '-';
  appendTwoDigits(out, c.day);
  out += 'T';
  appendTwoDigits(out, c.hour);
  out += ':';
  appendTwoDigits(out, c.minute);
  out += ':';
  appendTwoDigits(out, c.second);
  if (c.nanos != 0) {
    std::string frac = std::to_string(c.nanos);
    frac.insert(0, 9 - frac.size(), '0');
    while (frac.back() == '0') frac.pop_back();
    out += '.' + frac;
  }
  if (t.offset == 0) return out + "Z";
  const int64_t minutes = (t.offset < 0 ? -t.offset : t.offset) / 60;
  out += t.offset < 0 ? '-' : '+';
  appendTwoDigits(out, minutes / 60);
  out += ':';
  appendTwoDigits(out, minutes % 60);
  return out;
}

std::optional<int64_t> parseGoDuration(std::string_view s) {
  auto d = ks::parseGoDuration(s);
  if (!d.ok()) return std::nullopt;
  return d->count();
}

std::string formatDurationSeconds(int64_t nanos) {
  // Go's Duration.Seconds(): whole seconds plus the remaining nanoseconds / 1e9, as a double, printed
  // with strconv.FormatFloat(x, 'f', -1, 64) (the shortest digits that read back, no exponent).
  const double seconds =
      static_cast<double>(nanos / kNanosPerSecond) + static_cast<double>(nanos % kNanosPerSecond) / 1e9;
  char buf[400];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, seconds, std::chars_format::fixed);
  (void)ec;
  return std::string(buf, end) + "s";
}

Result<Timestamp> addDuration(const Timestamp& t, int64_t nanos) {
  int64_t sec = 0;
  if (__builtin_add_overflow(t.seconds, nanos / kNanosPerSecond, &sec)) return Error("integer overflow");
  int64_t nsec = t.nanos + nanos % kNanosPerSecond;
  if (nsec < 0 || nsec >= kNanosPerSecond) {
    if (__builtin_add_overflow(sec, nsec / kNanosPerSecond, &sec)) return Error("integer overflow");
    nsec -= (nsec / kNanosPerSecond) * kNanosPerSecond;
    if (nsec < 0) {
      if (__builtin_add_overflow(sec, int64_t{-1}, &sec)) return Error("integer overflow");
      nsec += kNanosPerSecond;
    }
  }
  if (sec < kMinUnixSeconds || sec > kMaxUnixSeconds) return Error("timestamp overflow");
  Timestamp out = t;
  out.seconds = sec;
  out.nanos = static_cast<int32_t>(nsec);
  return out;
}

Result<int64_t> subtractTimestamps(const Timestamp& a, const Timestamp& b) {
  int64_t sec = 0, scaled = 0, total = 0;
  if (__builtin_sub_overflow(a.seconds, b.seconds, &sec)) return Error("integer overflow");
  if (__builtin_mul_overflow(sec, kNanosPerSecond, &scaled)) return Error("integer overflow");
  if (__builtin_add_overflow(scaled, int64_t{a.nanos} - b.nanos, &total)) return Error("integer overflow");
  return total;
}

namespace {

// A time zone as Go's time.LoadLocation reads it from a TZif file: the transitions, the zones they
// switch to, and the POSIX TZ rule ("extend") for instants after the last transition.
struct ZoneInfo {
  struct Zone {
    int32_t offset;
    bool isDst;
  };
  std::vector<std::pair<int64_t, uint8_t>> transitions;  // (when, zone index)
  std::vector<Zone> zones;
  std::string extend;
};

uint64_t readBigEndian(const std::string& data, size_t at, size_t bytes) {
  uint64_t v = 0;
  for (size_t i = 0; i < bytes; ++i) v = (v << 8) | static_cast<unsigned char>(data[at + i]);
  return v;
}

// Parses TZif data (RFC 8536), preferring the 64-bit section of version 2 and later as Go does.
std::optional<ZoneInfo> parseTzif(const std::string& data) {
  constexpr size_t kHeader = 44;
  if (data.size() < kHeader || data.compare(0, 4, "TZif") != 0) return std::nullopt;
  const auto counts = [&](size_t at) {
    std::array<uint64_t, 6> c{};  // isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt
    for (size_t i = 0; i < 6; ++i) c[i] = readBigEndian(data, at + 20 + 4 * i, 4);
    return c;
  };
  const auto blockSize = [](const std::array<uint64_t, 6>& c, size_t timeBytes) {
    return c[3] * timeBytes + c[3] + c[4] * 6 + c[5] + c[2] * (timeBytes + 4) + c[1] + c[0];
  };
  size_t at = 0;
  size_t timeBytes = 4;
  std::array<uint64_t, 6> c = counts(0);
  if (data[4] >= '2') {
    at = kHeader + blockSize(c, 4);
    if (data.size() < at + kHeader || data.compare(at, 4, "TZif") != 0) return std::nullopt;
    c = counts(at);
    timeBytes = 8;
  }
  at += kHeader;
  if (data.size() < at + blockSize(c, timeBytes) || c[4] == 0) return std::nullopt;
  ZoneInfo z;
  const size_t indices = at + c[3] * timeBytes;
  for (size_t i = 0; i < c[3]; ++i) {
    const uint64_t raw = readBigEndian(data, at + i * timeBytes, timeBytes);
    const int64_t when = timeBytes == 8 ? static_cast<int64_t>(raw) : static_cast<int32_t>(raw);
    const auto index = static_cast<uint8_t>(data[indices + i]);
    if (index >= c[4]) return std::nullopt;
    z.transitions.emplace_back(when, index);
  }
  const size_t types = indices + c[3];
  for (size_t i = 0; i < c[4]; ++i)
    z.zones.push_back(
        {static_cast<int32_t>(readBigEndian(data, types + 6 * i, 4)), data[types + 6 * i + 4] != 0});
  // Go adds a transition at the beginning of time when there is none.
  if (z.transitions.empty()) z.transitions.emplace_back(std::numeric_limits<int64_t>::min(), 0);
  const size_t footer = at + blockSize(c, timeBytes);
  if (timeBytes == 8 && footer + 1 < data.size() && data[footer] == '\n') {
    const size_t end = data.find('\n', footer + 1);
    if (end != std::string::npos) z.extend = data.substr(footer + 1, end - footer - 1);
  }
  return z;
}

// Go's tzsetNum, tzsetName, tzsetOffset and tzsetRule: pieces of a POSIX TZ string.
std::optional<int> tzNum(std::string_view& s, int min, int max) {
  size_t i = 0;
  int num = 0;
  for (; i < s.size() && isDigit(s, i); ++i) {
    num = num * 10 + (s[i] - '0');
    if (num > max) return std::nullopt;
  }
  if (i == 0 || num < min) return std::nullopt;
  s.remove_prefix(i);
  return num;
}

bool tzName(std::string_view& s) {
  if (s.empty()) return false;
  if (s[0] == '<') {
    const size_t close = s.find('>');
    if (close == std::string_view::npos) return false;
    s.remove_prefix(close + 1);
    return true;
  }
  size_t i = 0;
  while (i < s.size() && !isDigit(s, i) && s[i] != ',' && s[i] != '-' && s[i] != '+') ++i;
  if (i < 3) return false;
  s.remove_prefix(i);
  return true;
}

std::optional<int> tzOffset(std::string_view& s) {
  if (s.empty()) return std::nullopt;
  const bool negative = s[0] == '-';
  if (s[0] == '+' || s[0] == '-') s.remove_prefix(1);
  auto hours = tzNum(s, 0, 24 * 7);
  if (!hours) return std::nullopt;
  int off = *hours * 3600;
  for (int unit : {60, 1}) {
    if (s.empty() || s[0] != ':') break;
    s.remove_prefix(1);
    auto n = tzNum(s, 0, 59);
    if (!n) return std::nullopt;
    off += *n * unit;
  }
  return negative ? -off : off;
}

struct TzRule {
  char kind;  // 'J' (Julian day, no leap day), 'D' (zero-based day of year), 'M' (month.week.weekday)
  int day = 0, week = 0, month = 0;
  int time = 2 * 3600;
};

std::optional<TzRule> tzRule(std::string_view& s) {
  if (s.empty()) return std::nullopt;
  TzRule r{};
  r.time = 2 * 3600;
  if (s[0] == 'J') {
    s.remove_prefix(1);
    auto d = tzNum(s, 1, 365);
    if (!d) return std::nullopt;
    r = TzRule{'J', *d};
  } else if (s[0] == 'M') {
    s.remove_prefix(1);
    auto m = tzNum(s, 1, 12);
    if (!m || !skipLiteral(s, '.')) return std::nullopt;
    auto w = tzNum(s, 1, 5);
    if (!w || !skipLiteral(s, '.')) return std::nullopt;
    auto d = tzNum(s, 0, 6);
    if (!d) return std::nullopt;
    r = TzRule{'M', *d, *w, *m};
  } else {
    auto d = tzNum(s, 0, 365);
    if (!d) return std::nullopt;
    r = TzRule{'D', *d};
  }
  if (s.empty() || s[0] != '/') return r;
  s.remove_prefix(1);
  auto t = tzOffset(s);
  if (!t) return std::nullopt;
  r.time = *t;
  return r;
}

// Go's tzruleTime: seconds from the start of `year` (local standard time) to the rule's moment in UTC.
int64_t tzRuleTime(int64_t year, const TzRule& r, int offset) {
  int64_t s = 0;
  if (r.kind == 'J') {
    s = (r.day - 1) * int64_t{86400} + (isLeap(year) && r.day >= 60 ? 86400 : 0);
  } else if (r.kind == 'D') {
    s = r.day * int64_t{86400};
  } else {
    // Zeller's congruence: the weekday of the month's first day.
    const int64_t m1 = (r.month + 9) % 12 + 1;
    const int64_t yy0 = r.month <= 2 ? year - 1 : year;
    const int64_t yy1 = yy0 / 100, yy2 = yy0 % 100;
    int64_t dow = ((26 * m1 - 2) / 10 + 1 + yy2 + yy2 / 4 + yy1 / 4 - 2 * yy1) % 7;
    if (dow < 0) dow += 7;
    int64_t d = r.day - dow;
    if (d < 0) d += 7;
    for (int i = 1; i < r.week; ++i) {
      if (d + 7 >= daysIn(r.month, year)) break;
      d += 7;
    }
    d += daysFromCivil(2001, r.month, 1) - daysFromCivil(2001, 1, 1);  // days before the month
    if (isLeap(year) && r.month > 2) ++d;
    s = d * 86400;
  }
  return s + r.time - offset;
}

// Go's tzset: the UTC offset the POSIX TZ string `tz` gives at `sec`, or nullopt when it does not parse.
std::optional<int64_t> tzsetOffset(std::string_view tz, int64_t sec) {
  if (!tzName(tz)) return std::nullopt;
  auto stdOffset = tzOffset(tz);
  if (!stdOffset) return std::nullopt;
  const int stdOff = -*stdOffset;
  if (tz.empty() || tz[0] == ',') return stdOff;
  if (!tzName(tz)) return std::nullopt;
  int dstOff = stdOff + 3600;
  if (!tz.empty() && tz[0] != ',') {
    auto o = tzOffset(tz);
    if (!o) return std::nullopt;
    dstOff = -*o;
  }
  std::string_view rules = tz.empty() ? std::string_view(",M3.2.0,M11.1.0") : tz;
  if (rules[0] != ',' && rules[0] != ';') return std::nullopt;
  rules.remove_prefix(1);
  auto start = tzRule(rules);
  if (!start || !skipLiteral(rules, ',')) return std::nullopt;
  auto end = tzRule(rules);
  if (!end || !rules.empty()) return std::nullopt;
  // The year and the second within it, of `sec` in UTC.
  const CivilTime c = civilTime(Timestamp{sec, 0, 0}, 0);
  const int64_t ysec = (c.yearDay - 1) * int64_t{86400} + sec % 86400;
  int64_t startSec = tzRuleTime(c.year, *start, stdOff);
  int64_t endSec = tzRuleTime(c.year, *end, dstOff);
  int std = stdOff, dst = dstOff;
  if (endSec < startSec) {  // southern hemisphere: the labels swap
    std::swap(startSec, endSec);
    std::swap(std, dst);
  }
  return ysec < startSec || ysec >= endSec ? std : dst;
}

// Go's Location.lookup: the offset at `sec`.
int64_t lookupOffset(const ZoneInfo& z, int64_t sec) {
  const auto& tx = z.transitions;
  if (sec < tx.front().first) {
    // Go's lookupFirstZone.
    const bool firstUsed = std::any_of(tx.begin(), tx.end(), [](const auto& t) { return t.second == 0; });
    if (!firstUsed) return z.zones[0].offset;
    if (z.zones[tx.front().second].isDst) {
      for (int zi = tx.front().second - 1; zi >= 0; --zi)
        if (!z.zones[static_cast<size_t>(zi)].isDst) return z.zones[static_cast<size_t>(zi)].offset;
    }
    for (const auto& zone : z.zones)
      if (!zone.isDst) return zone.offset;
    return z.zones[0].offset;
  }
  const auto after =
      std::upper_bound(tx.begin(), tx.end(), sec, [](int64_t s, const auto& t) { return s < t.first; });
  const auto& last = *(after - 1);
  if (after == tx.end() && !z.extend.empty()) {
    if (auto o = tzsetOffset(z.extend, sec)) return *o;
  }
  return z.zones[last.second].offset;
}

// A zone file's TZif data, or Go's error for it: a missing file is an unknown zone, a directory "is a
// directory", anything but TZif "malformed time zone information".
Result<std::shared_ptr<const ZoneInfo>> readZoneFile(const std::string& path, const std::string& name) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return Error("is a directory");
  if (!std::filesystem::is_regular_file(path, ec)) return Error("unknown time zone " + name);
  std::ifstream in(path, std::ios::binary);
  std::ostringstream data;
  data << in.rdbuf();
  auto zone = parseTzif(data.str());
  if (!zone) return Error("malformed time zone information");
  return std::make_shared<const ZoneInfo>(std::move(*zone));
}

// Go's time.LoadLocation (minus its embedded fallback database): the system's zoneinfo, "Local" from TZ
// or /etc/localtime. Loaded once per name.
Result<std::shared_ptr<const ZoneInfo>> loadZone(const std::string& name) {
  static std::mutex mu;
  static std::map<std::string, Result<std::shared_ptr<const ZoneInfo>>> cache;
  std::lock_guard lock(mu);
  if (auto it = cache.find(name); it != cache.end()) return it->second;
  std::string path = "/usr/share/zoneinfo/" + name;
  if (name == "Local") {
    const char* tz = std::getenv("TZ");
    path = tz == nullptr ? "/etc/localtime" : std::string(tz);
    if (tz != nullptr && !path.empty() && path[0] == ':') path.erase(0, 1);
    if (tz != nullptr && !path.empty() && path[0] != '/') path = "/usr/share/zoneinfo/" + path;
  }
  Result<std::shared_ptr<const ZoneInfo>> zone =
      name == "Local" && (path.empty() || path == "/usr/share/zoneinfo/UTC")
          ? Result<std::shared_ptr<const ZoneInfo>>(std::make_shared<const ZoneInfo>(
                ZoneInfo{{{std::numeric_limits<int64_t>::min(), 0}}, {{0, false}}, {}}))
          : readZoneFile(path, name);
  if (cache.size() > 1000) cache.clear();
  cache.emplace(name, zone);
  return zone;
}

}  // namespace

Result<int64_t> zoneOffset(std::string_view zone, const Timestamp& t) {
  const size_t colon = zone.find(':');
  if (colon == std::string_view::npos) {
    if (zone.empty() || zone == "UTC") return int64_t{0};
    if (zone.find("..") != std::string_view::npos || zone[0] == '/' || zone[0] == '\\')
      return Error("time: invalid location name");
    // Opening a file name with a NUL byte fails in Go with EINVAL.
    if (zone.find('\0') != std::string_view::npos) return Error("invalid argument");
    auto info = loadZone(std::string(zone));
    if (!info.ok()) return info.error();
    return lookupOffset(**info, t.seconds);
  }
  auto hours = goAtoi(zone.substr(0, colon));
  if (!hours.ok()) return hours.error();
  auto minutes = goAtoi(zone.substr(colon + 1));
  if (!minutes.ok()) return minutes.error();
  // cel-go: hours*60 -/+ minutes (by the sign character), as a Go Duration of minutes (wrapping).
  const uint64_t offsetMinutes = zone[0] == '-'
                                     ? static_cast<uint64_t>(*hours) * 60 - static_cast<uint64_t>(*minutes)
                                     : static_cast<uint64_t>(*hours) * 60 + static_cast<uint64_t>(*minutes);
  const auto nanos = static_cast<int64_t>(offsetMinutes * 60 * static_cast<uint64_t>(kNanosPerSecond));
  // time.FixedZone takes an int of seconds; Duration.Seconds() of a whole number of seconds.
  return nanos / kNanosPerSecond;
}

}  // namespace ks::cel
