#pragma once
// Semantic versions as Kubernetes' CEL semver library holds them: blang/semver v4's strict Parse (with
// its error texts), its Compare, and the library's normalizing parse (`semver("v1.02", true)`).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/util/result.h"

namespace ks::cel {

struct Semver {
  struct PreRelease {
    std::string text;  // alphanumeric identifier, or the digits of a numeric one
    uint64_t number = 0;
    bool numeric = false;
    bool operator==(const PreRelease&) const = default;
  };
  uint64_t major = 0, minor = 0, patch = 0;
  std::vector<PreRelease> pre;
  std::vector<std::string> build;

  // blang/semver v4 Parse: "MAJOR.MINOR.PATCH[-pre][+build]", no leading zeros, no "v".
  static Result<Semver> parse(std::string_view s);
  // The CEL library's normalize mode: strips a leading "v" and leading zeros, pads a missing minor/patch.
  static Result<Semver> parseNormalized(std::string_view s);
  // Precedence per semver 2.0 (build metadata ignored): -1, 0, 1.
  int compare(const Semver& other) const;
  std::string toString() const;
  bool operator==(const Semver& other) const { return compare(other) == 0; }
};

}  // namespace ks::cel
