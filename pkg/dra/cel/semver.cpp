#include "pkg/dra/cel/semver.h"

#include <charconv>

namespace ks::cel {
namespace {

constexpr std::string_view kNumbers = "0123456789";
constexpr std::string_view kAlphanum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-0123456789";

bool containsOnly(std::string_view s, std::string_view set) {
  return s.find_first_not_of(set) == std::string_view::npos;
}
bool hasLeadingZeroes(std::string_view s) {
  return s.size() > 1 && s[0] == '0';
}

std::string quoted(std::string_view s) {
  return "\"" + std::string(s) + "\"";
}

// strconv.ParseUint(s, 10, 64) on a string of digits (possibly empty), with Go's error texts.
Result<uint64_t> parseUint(std::string_view s) {
  uint64_t v = 0;
  if (s.empty()) return Error("strconv.ParseUint: parsing " + quoted(s) + ": invalid syntax");
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc::result_out_of_range)
    return Error("strconv.ParseUint: parsing " + quoted(s) + ": value out of range");
  if (ec != std::errc() || p != s.data() + s.size())
    return Error("strconv.ParseUint: parsing " + quoted(s) + ": invalid syntax");
  return v;
}

std::vector<std::string_view> split(std::string_view s, char sep, size_t maxParts = SIZE_MAX) {
  std::vector<std::string_view> out;
  while (out.size() + 1 < maxParts) {
    const size_t at = s.find(sep);
    if (at == std::string_view::npos) break;
    out.push_back(s.substr(0, at));
    s.remove_prefix(at + 1);
  }
  out.push_back(s);
  return out;
}

Result<uint64_t> parseNumber(std::string_view s, const char* what) {
  if (!containsOnly(s, kNumbers))
    return Error(std::string("Invalid character(s) found in ") + what + " number " + quoted(s));
  if (hasLeadingZeroes(s)) {
    std::string w(what);
    w[0] = static_cast<char>(w[0] - 'a' + 'A');
    return Error(w + " number must not contain leading zeroes " + quoted(s));
  }
  return parseUint(s);
}

}  // namespace

Result<Semver> Semver::parse(std::string_view s) {
  if (s.empty()) return Error("Version string empty");
  const auto parts = split(s, '.', 3);
  if (parts.size() != 3) return Error("No Major.Minor.Patch elements found");
  Semver v;
  auto major = parseNumber(parts[0], "major");
  if (!major.ok()) return major.error();
  auto minor = parseNumber(parts[1], "minor");
  if (!minor.ok()) return minor.error();
  v.major = *major;
  v.minor = *minor;

  std::string_view patch = parts[2];
  std::vector<std::string_view> build, pre;
  if (const size_t plus = patch.find('+'); plus != std::string_view::npos) {
    build = split(patch.substr(plus + 1), '.');
    patch = patch.substr(0, plus);
  }
  if (const size_t dash = patch.find('-'); dash != std::string_view::npos) {
    pre = split(patch.substr(dash + 1), '.');
    patch = patch.substr(0, dash);
  }
  auto p = parseNumber(patch, "patch");
  if (!p.ok()) return p.error();
  v.patch = *p;

  for (std::string_view id : pre) {
    if (id.empty()) return Error("Prerelease is empty");
    PreRelease pr;
    pr.text = std::string(id);
    if (containsOnly(id, kNumbers)) {
      if (hasLeadingZeroes(id))
        return Error("Numeric PreRelease version must not contain leading zeroes " + quoted(id));
      auto n = parseUint(id);
      if (!n.ok()) return n.error();
      pr.number = *n;
      pr.numeric = true;
    } else if (!containsOnly(id, kAlphanum)) {
      return Error("Invalid character(s) found in prerelease " + quoted(id));
    }
    v.pre.push_back(std::move(pr));
  }
  for (std::string_view b : build) {
    if (b.empty()) return Error("Build meta data is empty");
    if (!containsOnly(b, kAlphanum))
      return Error("Invalid character(s) found in build meta data " + quoted(b));
    v.build.emplace_back(b);
  }
  return v;
}

Result<Semver> Semver::parseNormalized(std::string_view s) {
  if (s.starts_with('v')) s.remove_prefix(1);
  std::vector<std::string> parts;
  for (std::string_view p : split(s, '.', 3)) {
    std::string part(p);
    if (part.size() > 1) {
      part.erase(
          0, part.find_first_not_of('0') == std::string::npos ? part.size() : part.find_first_not_of('0'));
      if (part.empty() || kNumbers.find(part[0]) == std::string_view::npos) part.insert(0, "0");
    }
    parts.push_back(std::move(part));
  }
  if (parts.size() < 3) {
    if (parts.back().find_first_of("+-") != std::string::npos)
      return Error("short version cannot contain PreRelease/Build meta data");
    while (parts.size() < 3) parts.emplace_back("0");
  }
  return parse(parts[0] + "." + parts[1] + "." + parts[2]);
}

int Semver::compare(const Semver& o) const {
  auto cmp = [](auto a, auto b) { return a < b ? -1 : (a > b ? 1 : 0); };
  if (int c = cmp(major, o.major)) return c;
  if (int c = cmp(minor, o.minor)) return c;
  if (int c = cmp(patch, o.patch)) return c;
  if (pre.empty() || o.pre.empty()) return cmp(pre.empty() ? 1 : 0, o.pre.empty() ? 1 : 0);
  for (size_t i = 0; i < pre.size() && i < o.pre.size(); ++i) {
    const PreRelease& a = pre[i];
    const PreRelease& b = o.pre[i];
    if (a.numeric != b.numeric) return a.numeric ? -1 : 1;
    if (int c = a.numeric                    ? cmp(a.number, b.number)
                : a.text.compare(b.text) < 0 ? -1
                                             : (a.text == b.text ? 0 : 1))
      return c;
  }
  return cmp(pre.size(), o.pre.size());
}

std::string Semver::toString() const {
  std::string s = std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
  for (size_t i = 0; i < pre.size(); ++i) s += (i == 0 ? "-" : ".") + pre[i].text;
  for (size_t i = 0; i < build.size(); ++i) s += (i == 0 ? "+" : ".") + build[i];
  return s;
}

}  // namespace ks::cel
