#include "pkg/features/features.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <optional>

namespace ks::features {
namespace {

constexpr std::array kFeatures = {
#define KS_FEATURE(name, def, stage, locked) FeatureSpec{#name, def, Stage::stage, locked},
#define KS_FEATURE_DEPENDENCY(name, needs)
#define KS_FEATURE_AT(emulation, minCompatibility, name, def, stage, locked)
#include "pkg/features/kube_features.inc"
#undef KS_FEATURE_AT
#undef KS_FEATURE_DEPENDENCY
#undef KS_FEATURE
};

// A gate's spec at another --emulated-version / --min-compatibility-version pair (featuregate's
// featureSpecAtEmulationAndMinCompatVersion, evaluated by the generator).
struct SpecAtVersions {
  unsigned emulationMinor;
  unsigned minCompatibilityMinor;
  FeatureSpec spec;
};

const std::vector<SpecAtVersions> kSpecsAtVersions = {
#define KS_FEATURE(name, def, stage, locked)
#define KS_FEATURE_DEPENDENCY(name, needs)
#define KS_FEATURE_AT(emulation, minCompatibility, name, def, stage, locked) \
  SpecAtVersions{emulation, minCompatibility, FeatureSpec{#name, def, Stage::stage, locked}},
#include "pkg/features/kube_features.inc"
#undef KS_FEATURE_AT
#undef KS_FEATURE_DEPENDENCY
#undef KS_FEATURE
};

struct Dependency {
  std::string_view feature;
  std::string_view needs;
};

const std::vector<Dependency> kDependencies = {
#define KS_FEATURE(name, def, stage, locked)
#define KS_FEATURE_DEPENDENCY(name, needs) Dependency{#name, #needs},
#define KS_FEATURE_AT(emulation, minCompatibility, name, def, stage, locked)
#include "pkg/features/kube_features.inc"
#undef KS_FEATURE_AT
#undef KS_FEATURE_DEPENDENCY
#undef KS_FEATURE
};

constexpr std::string_view kAllAlpha = "AllAlpha";
constexpr std::string_view kAllBeta = "AllBeta";

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// strconv.ParseBool
Result<bool> parseBool(std::string_view v) {
  if (v == "1" || v == "t" || v == "T" || v == "true" || v == "TRUE" || v == "True") return true;
  if (v == "0" || v == "f" || v == "F" || v == "false" || v == "FALSE" || v == "False") return false;
  return Error("strconv.ParseBool: parsing \"" + std::string(v) + "\": invalid syntax");
}

std::string boolText(bool b) { return b ? "true" : "false"; }

}  // namespace

std::string_view stageText(Stage stage) {
  switch (stage) {
    case Stage::PreAlpha:
      return "PRE-ALPHA";
    case Stage::Alpha:
      return "ALPHA";
    case Stage::Beta:
      return "BETA";
    case Stage::GA:
      return "";
    case Stage::Deprecated:
      return "DEPRECATED";
  }
  return "";
}

std::span<const FeatureSpec> knownFeatures() { return kFeatures; }

const FeatureSpec* findFeature(std::string_view name) {
  auto it = std::lower_bound(kFeatures.begin(), kFeatures.end(), name,
                             [](const FeatureSpec& f, std::string_view n) { return f.name < n; });
  if (it == kFeatures.end() || it->name != name) return nullptr;
  return &*it;
}

std::vector<std::string> knownFeaturesHelp() {
  // upstream KnownFeatures at the binary's versions; a gate whose spec differs with the min compatibility
  // raised to the binary's version gets ", or <that spec> if --min-compatibility-version>=1.N".
  auto help = [](const FeatureSpec& f) {
    return std::string(f.name) + "=true|false (" + std::string(stageText(f.stage)) + " - default=" +
           boolText(f.defaultValue) + ")";
  };
  std::vector<std::string> out;
  for (const auto& f : kFeatures) {
    const bool listed = f.stage != Stage::GA && f.stage != Stage::Deprecated;
    std::string line = listed ? "kube:" + help(f) : "";
    for (const auto& at : kSpecsAtVersions) {
      if (at.emulationMinor != kBinaryMinor || at.minCompatibilityMinor != kBinaryMinor || at.spec.name != f.name) continue;
      if (at.spec.stage == Stage::GA || at.spec.stage == Stage::Deprecated || at.spec.stage == Stage::PreAlpha) break;
      line += std::string(line.empty() ? "" : ", or ") + help(at.spec) + " if --min-compatibility-version>=" +
              std::to_string(kBinaryMajor) + "." + std::to_string(kBinaryMinor);
    }
    if (!line.empty()) out.push_back(std::move(line));
  }
  std::sort(out.begin(), out.end());
  return out;
}

const FeatureSpec* FeatureGate::spec(std::string_view name) const {
  const FeatureSpec* base = findFeature(name);
  if (base == nullptr || (emulationMinor_ == kBinaryMinor && minCompatibilityMinor_ == kBinaryMinor - 1)) return base;
  for (const auto& at : kSpecsAtVersions) {
    if (at.emulationMinor == emulationMinor_ && at.minCompatibilityMinor == minCompatibilityMinor_ &&
        at.spec.name == name) {
      return &at.spec;
    }
  }
  return base;
}

void FeatureGate::setVersions(unsigned emulationMinor, unsigned minCompatibilityMinor) {
  emulationMinor_ = emulationMinor;
  minCompatibilityMinor_ = minCompatibilityMinor;
}

VoidResult FeatureGate::validateDependencies() const {
  std::map<std::string_view, std::vector<std::string_view>> disabled;  // sorted by gate
  for (const auto& d : kDependencies) {
    if (enabled(d.feature) && !enabled(d.needs)) disabled[d.feature].push_back(d.needs);
  }
  std::vector<std::string> errors;
  for (const auto& [feature, needs] : disabled) {
    std::string list;
    for (auto n : needs) list += std::string(list.empty() ? "" : " ") + std::string(n);
    errors.push_back(std::string(feature) + " is enabled, but depends on features that are disabled: [" + list + "]");
  }
  if (errors.empty()) return {};
  if (errors.size() == 1) return Error(errors.front());
  std::string joined;
  for (const auto& e : errors) joined += (joined.empty() ? "" : ", ") + e;
  return Error("[" + joined + "]");
}

VoidResult FeatureGate::set(std::string_view text, std::vector<std::string>* warnings) {
  std::map<std::string, bool, std::less<>> raw = raw_;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = std::min(text.find(',', pos), text.size());
    std::string_view item = text.substr(pos, comma - pos);
    pos = comma + 1;
    if (item.empty()) continue;
    size_t eq = item.find('=');
    std::string_view key = trim(item.substr(0, eq));
    if (eq == std::string_view::npos) return Error("missing bool value for " + std::string(key));
    std::string_view value = trim(item.substr(eq + 1));
    auto b = parseBool(value);
    if (!b.ok()) {
      return Error("invalid value of " + std::string(key) + "=" + std::string(value) +
                   ", err: " + b.error().message());
    }
    raw[std::string(key)] = *b;
  }

  // upstream unsafeSetFromMap over all raw values: an unknown gate fails at once, locked ones are
  // collected. Explicit values win over AllAlpha / AllBeta whatever the order.
  std::vector<std::string> errors;
  std::vector<std::string> warned;
  std::map<std::string, bool, std::less<>> enabled;
  for (const auto& [key, value] : raw) {
    const FeatureSpec* spec = this->spec(key);
    if (spec == nullptr) return Error("unrecognized feature gate: " + key);
    if (spec->lockToDefault && spec->defaultValue != value) {
      errors.push_back("cannot set feature gate " + key + " to " + boolText(value) + ", feature is locked to " +
                       boolText(spec->defaultValue));
      continue;
    }
    if (spec->stage == Stage::PreAlpha) {
      errors.push_back("cannot set feature gate " + key + " to " + boolText(value) +
                       ", feature is PreAlpha at emulated version " + std::to_string(kBinaryMajor) + "." +
                       std::to_string(emulationMinor_) + ", min compatibility version " +
                       std::to_string(kBinaryMajor) + "." + std::to_string(minCompatibilityMinor_));
      continue;
    }
    enabled[key] = value;
    if (spec->stage == Stage::Deprecated) {
      warned.push_back("Setting deprecated feature gate " + key + "=" + boolText(value) +
                       ". It will be removed in a future release.");
    } else if (spec->stage == Stage::GA) {
      warned.push_back("Setting GA feature gate " + key + "=" + boolText(value) +
                       ". It will be removed in a future release.");
    }
  }
  if (errors.size() == 1) return Error(errors.front());
  if (!errors.empty()) {
    std::string joined;
    for (const auto& e : errors) joined += (joined.empty() ? "" : ", ") + e;
    return Error("[" + joined + "]");
  }
  for (std::string_view special : {kAllAlpha, kAllBeta}) {
    auto it = raw.find(special);
    if (it == raw.end()) continue;
    const Stage stage = special == kAllAlpha ? Stage::Alpha : Stage::Beta;
    for (const auto& f : kFeatures) {
      if (f.name == kAllAlpha || f.name == kAllBeta || spec(f.name)->stage != stage) continue;
      enabled.try_emplace(std::string(f.name), it->second);
    }
  }
  raw_ = std::move(raw);
  enabled_ = std::move(enabled);
  if (warnings != nullptr) warnings->insert(warnings->end(), warned.begin(), warned.end());
  return {};
}

bool FeatureGate::enabled(std::string_view name) const {
  if (auto it = enabled_.find(name); it != enabled_.end()) return it->second;
  const FeatureSpec* spec = this->spec(name);
  if (spec == nullptr) std::abort();  // upstream panics: "feature %q is not registered in FeatureGate"
  return spec->defaultValue;
}

std::vector<std::string> FeatureGate::enabledAlphaFeatures() const {
  std::vector<std::string> out;
  for (const auto& f : kFeatures) {
    if (spec(f.name)->stage == Stage::Alpha && enabled(f.name)) out.emplace_back(f.name);
  }
  return out;
}

std::string FeatureGate::toString() const {
  std::string out;
  for (const auto& [k, v] : enabled_) out += (out.empty() ? "" : ",") + k + "=" + boolText(v);
  return out;
}

VoidResult applyFeatureGatesFlags(const std::vector<std::string>& flagValues, FeatureGate& gates,
                                  std::vector<std::string>* warnings) {
  std::map<std::string, std::vector<std::string>> byComponent;
  for (std::string_view v : flagValues) {
    size_t pos = 0;
    while (pos <= v.size()) {
      size_t comma = std::min(v.find(',', pos), v.size());
      std::string_view pair = v.substr(pos, comma - pos);
      pos = comma + 1;
      if (pair.empty()) continue;
      std::string component;
      std::string_view value = pair;
      if (auto colon = pair.find(':'); colon != std::string_view::npos) {
        component = std::string(trim(pair.substr(0, colon)));
        value = pair.substr(colon + 1);
      }
      byComponent[component].emplace_back(trim(value));
    }
  }
  for (const auto& [component, values] : byComponent) {
    if (component.empty() && byComponent.count("kube") != 0) {
      return Error(
          "set kube feature gates with default empty prefix or kube: prefix consistently, do not mix use");
    }
    if (!component.empty() && component != "kube") return Error("component not registered: " + component);
    std::string joined;
    for (const auto& v : values) joined += (joined.empty() ? "" : ",") + v;
    if (auto r = gates.set(joined, warnings); !r.ok()) return r;
  }
  return {};
}

Result<std::vector<unsigned>> parseVersion(std::string_view text) {
  const std::string quoted = "\"" + std::string(text) + "\"";
  std::string_view s = trim(text);
  if (!s.empty() && s.front() == 'v') s.remove_prefix(1);
  size_t end = 0;
  while (end < s.size() && (std::isdigit(static_cast<unsigned char>(s[end])) || s[end] == '.')) ++end;
  std::string_view numbers = s.substr(0, end);
  if (numbers.empty() || !std::isdigit(static_cast<unsigned char>(numbers.front()))) {
    return Error("could not parse " + quoted + " as version");
  }
  if (end != s.size()) {
    return Error("could not parse pre-release/metadata (" + std::string(s.substr(end)) + ") in version " + quoted);
  }
  std::vector<unsigned> out;
  size_t p = 0;
  while (p <= numbers.size()) {
    size_t dot = std::min(numbers.find('.', p), numbers.size());
    std::string_view comp = numbers.substr(p, dot - p);
    if (comp.empty()) return Error("could not parse " + quoted + " as version");
    if (comp.size() > 1 && comp.front() == '0') {
      return Error("illegal zero-prefixed version component \"" + std::string(comp) + "\" in " + quoted);
    }
    if (comp.size() > 9) {
      return Error("illegal non-numeric version component \"" + std::string(comp) + "\" in " + quoted +
                   ": strconv.ParseUint: parsing \"" + std::string(comp) + "\": value out of range");
    }
    out.push_back(static_cast<unsigned>(std::strtoul(std::string(comp).c_str(), nullptr, 10)));
    if (dot == numbers.size()) break;
    p = dot + 1;
  }
  if (out.size() < 2) return Error("illegal version string " + quoted);
  while (out.size() < 3) out.push_back(0);
  return out;
}

namespace {

std::string majorMinor(const std::vector<unsigned>& v) { return std::to_string(v[0]) + "." + std::to_string(v[1]); }

// upstream compatibility toVersionMap + getFullVersionConfig for one version flag's values: "1.37", "kube=1.37";
// the kube component's version, if given.
Result<std::optional<std::vector<unsigned>>> kubeVersionOf(const std::vector<std::string>& values) {
  std::map<std::string, std::vector<unsigned>> versions;
  for (const auto& value : values) {
    std::string component = "kube";
    std::string_view v = value;
    if (auto eq = value.find('='); eq != std::string::npos) {
      component = std::string(trim(std::string_view(value).substr(0, eq)));
      v = trim(std::string_view(value).substr(eq + 1));
    }
    auto parsed = parseVersion(v);
    if (!parsed.ok()) return parsed.error();
    if ((*parsed)[2] != 0) {
      return Error("patch version not allowed, got: " + component + "=" + majorMinor(*parsed) + "." +
                   std::to_string((*parsed)[2]));
    }
    if (auto it = versions.find(component); it != versions.end()) {
      return Error("duplicate version flag, " + component + "=" + majorMinor(it->second) + " and " + component +
                   "=" + majorMinor(*parsed));
    }
    versions[component] = *parsed;
  }
  for (const auto& [component, v] : versions) {
    if (component != "kube") return Error("component not registered: " + component);
  }
  if (auto it = versions.find("kube"); it != versions.end()) return std::optional(it->second);
  return std::optional<std::vector<unsigned>>();
}

}  // namespace

VoidResult applyEmulatedVersion(const std::vector<std::string>& values, FeatureGate& gates) {
  auto kube = kubeVersionOf(values);
  if (!kube.ok()) return kube.error();
  if (!*kube) return {};
  const std::vector<unsigned>& v = **kube;
  if (v[0] != kBinaryMajor || v[1] < kVersionFloorMinor || v[1] > kBinaryMinor) {
    return Error("emulation version " + majorMinor(v) + " is not between [" + std::to_string(kBinaryMajor) + "." +
                 std::to_string(kVersionFloorMinor) + ", " + std::to_string(kBinaryMajor) + "." +
                 std::to_string(kBinaryMinor) + ".0]");
  }
  // upstream SetEmulationVersion: the min compatibility follows (one minor below, not under the floor).
  gates.setVersions(v[1], std::max(v[1] - 1, kVersionFloorMinor));
  return {};
}

VoidResult applyMinCompatibilityVersion(const std::vector<std::string>& values, FeatureGate& gates) {
  auto kube = kubeVersionOf(values);
  if (!kube.ok()) return kube.error();
  if (!*kube) return {};
  const std::vector<unsigned>& v = **kube;
  const unsigned emulation = gates.emulationMinor();
  if (v[0] != kBinaryMajor || v[1] < kVersionFloorMinor || v[1] > emulation) {
    return Error("minCompatibilityVersion version " + majorMinor(v) + " is not between [" +
                 std::to_string(kBinaryMajor) + "." + std::to_string(kVersionFloorMinor) + ", " +
                 std::to_string(kBinaryMajor) + "." + std::to_string(emulation) + "]");
  }
  gates.setVersions(emulation, v[1]);
  return {};
}

}  // namespace ks::features
