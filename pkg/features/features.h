#pragma once
// Feature gates, as upstream kube-scheduler v1.37.2 has them (k8s.io/component-base/featuregate behind the
// "kube" component of the compatibility registry): every gate its --feature-gates accepts, with default,
// stage and lockToDefault at the binary's version (kube_features.inc, generated from upstream's code by
// scripts/featuregates/generate.sh), AllAlpha / AllBeta, and upstream's error and warning texts.
//
// Which gates kube-scheduler-cpp honours and which it refuses at a non-default value is decided where the
// gates are consumed (pkg/app/gates.h); this package only knows the gates.

#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/util/result.h"

namespace ks::features {

// The binary's version for emulation: kube-scheduler-cpp implements v1.37 only.
inline constexpr unsigned kBinaryMajor = 1;
inline constexpr unsigned kBinaryMinor = 37;
// The lowest --emulated-version / --min-compatibility-version minor (upstream: binary - 3).
inline constexpr unsigned kVersionFloorMinor = kBinaryMinor - 3;

enum class Stage { PreAlpha, Alpha, Beta, GA, Deprecated };  // PreAlpha: unknown at the emulated version

// The stage as upstream's featuregate.prerelease prints it: "PRE-ALPHA", "ALPHA", "BETA", "" (GA), "DEPRECATED".
std::string_view stageText(Stage stage);

struct FeatureSpec {
  std::string_view name;
  bool defaultValue;
  Stage stage;
  bool lockToDefault;
};

// Every known gate, sorted by name (AllAlpha and AllBeta included).
std::span<const FeatureSpec> knownFeatures();

// The gate's spec, or nullptr when upstream v1.37.2 does not know it.
const FeatureSpec* findFeature(std::string_view name);

// The --feature-gates help lines as upstream's KnownFeatures, with the registry's "kube:" prefix: sorted,
// "kube:Name=true|false (BETA - default=true)"; GA and deprecated gates are not listed.
std::vector<std::string> knownFeaturesHelp();

// The gate values of one process. Not thread-safe to set; set it while parsing flags, then read only.
class FeatureGate {
 public:
  // upstream featureGate.Set: "A=true,B=false" (spaces around names and values trimmed, empty items
  // skipped). Values accumulate over calls. Errors: "missing bool value for A", "invalid value of A=x, err:
  // strconv.ParseBool: ...", "unrecognized feature gate: A", "cannot set feature gate A to false, feature is
  // locked to true" (several of the latter read "[e1, e2]"). On error nothing changes. Setting a GA or
  // deprecated gate appends upstream's warning to `warnings` (when given).
  VoidResult set(std::string_view text, std::vector<std::string>* warnings = nullptr);

  // The gate's value: set explicitly (or through AllAlpha / AllBeta), else its default. `name` must be a
  // known gate (a typo in our code is a programming error: aborts).
  bool enabled(std::string_view name) const;

  // The explicitly set gates (not those AllAlpha / AllBeta turned), by name.
  const std::map<std::string, bool, std::less<>>& explicitlySet() const { return raw_; }

  // The enabled alpha gates ("features=[...]" of upstream's emulated-version warning), sorted.
  std::vector<std::string> enabledAlphaFeatures() const;

  // upstream featureGate.String: the set gates (AllAlpha / AllBeta expanded), "A=true,B=false", sorted.
  std::string toString() const;

  // The versions the gates are evaluated at (--emulated-version, --min-compatibility-version; defaults: the
  // binary's and one below). Each gate's default, stage and lock follow upstream's spec at those versions
  // (kube_features.inc's KS_FEATURE_AT rows); set them before set().
  void setVersions(unsigned emulationMinor, unsigned minCompatibilityMinor);
  unsigned emulationMinor() const { return emulationMinor_; }
  unsigned minCompatibilityMinor() const { return minCompatibilityMinor_; }

  // The gate's spec at this gate's versions (nullptr when upstream v1.37.2 does not know it; PreAlpha when
  // it is unknown at the emulated version).
  const FeatureSpec* spec(std::string_view name) const;

  // upstream's dependency check (AddDependencies): every enabled gate's dependencies are enabled, else
  // "A is enabled, but depends on features that are disabled: [B C]" (several: "[e1, e2]", by gate name).
  VoidResult validateDependencies() const;

 private:
  std::map<std::string, bool, std::less<>> raw_;      // as given on the command line
  std::map<std::string, bool, std::less<>> enabled_;  // raw_ with AllAlpha / AllBeta expanded
  unsigned emulationMinor_ = kBinaryMinor;
  unsigned minCompatibilityMinor_ = kBinaryMinor - 1;
};

// Applies the values of --feature-gates flags, in order (upstream cli/flag ColonSeparatedMultimapStringString
// then componentGlobalsRegistry.Set): "kube:A=true,B=false"; items without a component are "kube"'s; mixing
// the two forms fails ("set kube feature gates with default empty prefix or kube: prefix consistently, do not
// mix use"), other components fail ("component not registered: wardle"); then gates.set's errors.
VoidResult applyFeatureGatesFlags(const std::vector<std::string>& flagValues, FeatureGate& gates,
                                  std::vector<std::string>* warnings = nullptr);

// upstream k8s.io/apimachinery version.Parse for --emulated-version: "1.34", "v1.34", "1.34.0"; returns
// {major, minor, patch}. Errors as upstream ("could not parse \"x\" as version", "illegal version string").
Result<std::vector<unsigned>> parseVersion(std::string_view text);

// Applies --emulated-version values (upstream toVersionMap / componentGlobalsRegistry.Set / Validate):
// "1.36", "kube=1.36"; other components "component not registered: x"; patch versions, duplicates and versions
// outside upstream's range (1.34..1.37) fail with upstream's texts. Sets `gates`' versions (the min
// compatibility one below the emulation, not under the floor).
VoidResult applyEmulatedVersion(const std::vector<std::string>& values, FeatureGate& gates);

// Applies --min-compatibility-version values after applyEmulatedVersion: parsed the same way; upstream's range
// (the floor .. the emulation version) with its text ("minCompatibilityVersion version 1.33 is not between
// [1.34, 1.37]").
VoidResult applyMinCompatibilityVersion(const std::vector<std::string>& values, FeatureGate& gates);

}  // namespace ks::features
