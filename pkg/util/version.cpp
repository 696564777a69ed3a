// Ported from k8s.io/apimachinery/pkg/util/version/version.go (parse with semver=true, compareInternal).

#include "pkg/util/version.h"

#include <cerrno>
#include <cstdlib>
#include <regex>
#include <vector>

#include "pkg/util/strings.h"

namespace ks {

namespace {

std::string quoted(std::string_view s) {
  return "\"" + std::string(s) + "\"";
}

// strconv.ParseUint(s, 10, 0) for a string of digits: false on overflow.
bool parseUint(const std::string& digits, uint64_t& out) {
  errno = 0;
  out = std::strtoull(digits.c_str(), nullptr, 10);
  return errno != ERANGE;
}

bool isNumeric(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

}  // namespace

Result<Version> Version::parseSemantic(std::string_view text) {
  // Upstream's versionMatchRE and extraMatchRE.
  static const std::regex kVersion(R"(^\s*v?([0-9]+(?:\.[0-9]+)*)(.*)$)");
  static const std::regex kExtra(
      R"(^(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?\s*$)");
  const std::string str(text);
  std::smatch parts;
  if (!std::regex_match(str, parts, kVersion)) return Error("could not parse " + quoted(str) + " as version");
  const std::string numbers = parts[1].str();
  const std::string extra = parts[2].str();

  const std::vector<std::string_view> components = split(numbers, '.');
  if (components.size() != 3) return Error("illegal version string " + quoted(str));
  Version v;
  for (size_t i = 0; i < components.size(); ++i) {
    const std::string comp(components[i]);
    if (comp.size() > 1 && comp.front() == '0') {
      return Error("illegal zero-prefixed version component " + quoted(comp) + " in " + quoted(str));
    }
    if (!parseUint(comp, v.components_[i])) {
      return Error("illegal non-numeric version component " + quoted(comp) + " in " + quoted(str) +
                   ": strconv.ParseUint: parsing " + quoted(comp) + ": value out of range");
    }
  }

  if (!extra.empty()) {
    std::smatch extraParts;
    if (!std::regex_match(extra, extraParts, kExtra)) {
      return Error("could not parse pre-release/metadata (" + extra + ") in version " + quoted(str));
    }
    v.preRelease_ = extraParts[1].str();
    v.buildMetadata_ = extraParts[2].str();
    for (std::string_view comp : split(v.preRelease_, '.')) {
      if (isNumeric(comp) && comp.size() > 1 && comp.front() == '0') {
        return Error("illegal zero-prefixed version component " + quoted(comp) + " in " + quoted(str));
      }
    }
  }
  return v;
}

int Version::compare(const Version& other) const {
  for (size_t i = 0; i < components_.size(); ++i) {
    if (components_[i] != other.components_[i]) return components_[i] > other.components_[i] ? 1 : -1;
  }
  if (preRelease_ == other.preRelease_) return 0;  // includes both empty
  if (preRelease_.empty()) return 1;
  if (other.preRelease_.empty()) return -1;

  // Identifiers compared in turn: numerically when both are numbers, else as strings.
  const auto mine = split(preRelease_, '.');
  const auto theirs = split(other.preRelease_, '.');
  for (size_t i = 0; i < mine.size() && i < theirs.size(); ++i) {
    uint64_t a = 0;
    uint64_t b = 0;
    if (isNumeric(mine[i]) && isNumeric(theirs[i]) && parseUint(std::string(mine[i]), a) &&
        parseUint(std::string(theirs[i]), b)) {
      if (a != b) return a > b ? 1 : -1;
      continue;
    }
    if (mine[i] != theirs[i]) return mine[i] > theirs[i] ? 1 : -1;
  }
  if (mine.size() != theirs.size()) return mine.size() > theirs.size() ? 1 : -1;
  return 0;
}

std::string Version::toString() const {
  std::string out = std::to_string(components_[0]) + "." + std::to_string(components_[1]) + "." +
                    std::to_string(components_[2]);
  if (!preRelease_.empty()) out += "-" + preRelease_;
  if (!buildMetadata_.empty()) out += "+" + buildMetadata_;
  return out;
}

}  // namespace ks
