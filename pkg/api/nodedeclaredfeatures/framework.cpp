// Ported from k8s.io/component-helpers/nodedeclaredfeatures (v0.37.2) framework.go.

#include "pkg/api/nodedeclaredfeatures/framework.h"

#include <algorithm>

#include "pkg/api/nodedeclaredfeatures/features.h"

namespace ks::api::nodedeclaredfeatures {

namespace {

std::vector<Feature> sortedByName(std::vector<Feature> registry) {
  std::sort(registry.begin(), registry.end(),
            [](const Feature& a, const Feature& b) { return a.name < b.name; });
  return registry;
}

std::vector<std::string> names(const std::vector<Feature>& registry) {
  std::vector<std::string> out;
  out.reserve(registry.size());
  for (const auto& f : registry) out.push_back(f.name);
  return out;
}

}  // namespace

Framework::Framework(std::vector<Feature> registry)
    : FeatureMapper(names(registry)), registry_(sortedByName(std::move(registry))) {}

Result<FeatureSet> Framework::inferForPodScheduling(const PodSpec& spec,
                                                    const std::optional<Version>& targetVersion) const {
  if (!targetVersion) return Error("target version cannot be nil");
  FeatureSet reqs = newFeatureSet();
  for (size_t i = 0; i < registry_.size(); ++i) {
    const Feature& f = registry_[i];
    // Every node of a version past the feature's maxVersion has it: no need to require it.
    if (f.maxVersion && targetVersion->greaterThan(*f.maxVersion)) continue;
    if (f.inferForScheduling(spec)) reqs.set(static_cast<int>(i));
  }
  return reqs;
}

Result<MatchResult> Framework::matchNode(const FeatureSet& requiredFeatures, const Node* node) const {
  if (node == nullptr) return Error("node cannot be nil");
  return matchNodeFeatureSet(requiredFeatures, tryMap(node->status.declaredFeatures));
}

Result<MatchResult> Framework::matchNodeFeatureSet(const FeatureSet& requiredFeatures,
                                                   const FeatureSet& nodeFeatures) const {
  if (requiredFeatures.isEmpty()) return MatchResult{true, {}};
  // The subset test first: it allocates nothing, and matching is the common case.
  auto isMatch = requiredFeatures.isSubset(nodeFeatures);
  if (!isMatch.ok()) return isMatch.error();
  if (*isMatch) return MatchResult{true, {}};
  // difference fails only where isSubset did.
  auto unsatisfied = unmap(*requiredFeatures.difference(nodeFeatures));
  if (!unsatisfied.ok()) return unsatisfied.error();
  return MatchResult{false, std::move(unsatisfied).value()};
}

const Framework& defaultFramework() {
  static const Framework kDefault(features::allFeatures());
  return kDefault;
}

}  // namespace ks::api::nodedeclaredfeatures
