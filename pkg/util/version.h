#pragma once
// Semantic versions as k8s.io/apimachinery/pkg/util/version parses and orders them (ParseSemantic,
// Compare): X.Y.Z with an optional pre-release and build metadata. A pre-release orders before its
// release; build metadata plays no part in the order.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "pkg/util/result.h"

namespace ks {

// The upstream Kubernetes release whose kube-scheduler this project follows: what `--version` names and what
// version-dependent logic (e.g. NodeDeclaredFeatures' inference, which upstream runs for version.Get())
// takes as the binary's version.
inline constexpr uint64_t kUpstreamMajor = 1;
inline constexpr uint64_t kUpstreamMinor = 37;
inline constexpr uint64_t kUpstreamPatch = 2;
inline constexpr std::string_view kUpstreamVersion = "v1.37.2";

class Version {
 public:
  // ParseSemantic: "1.37.2", "v1.39.0-alpha.2.39+049eafd34dfbd2", surrounding whitespace allowed. Errors
  // as upstream's ("illegal version string \"1.2\"", "could not parse ...").
  static Result<Version> parseSemantic(std::string_view text);
  Version(uint64_t major, uint64_t minor, uint64_t patch) : components_{major, minor, patch} {}

  uint64_t major() const { return components_[0]; }
  uint64_t minor() const { return components_[1]; }
  uint64_t patch() const { return components_[2]; }

  // -1, 0 or 1 as this version orders before, with or after `other` (upstream compareInternal).
  int compare(const Version& other) const;
  bool greaterThan(const Version& other) const { return compare(other) > 0; }
  bool lessThan(const Version& other) const { return compare(other) < 0; }

  // "1.0.0-alpha+001": no "v", whitespace dropped.
  std::string toString() const;

 private:
  Version() = default;

  std::array<uint64_t, 3> components_{};
  std::string preRelease_;
  std::string buildMetadata_;
};

}  // namespace ks
