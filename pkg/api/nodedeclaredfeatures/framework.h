#pragma once
// The scheduling side of k8s.io/component-helpers/nodedeclaredfeatures (framework.go, types): which
// declared node features a pod needs, and whether a node declares them. Discovery (kubelet), Requirements
// and update inference (API validation of pod updates) are not ported: the scheduler never calls them.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "pkg/api/core.h"
#include "pkg/api/nodedeclaredfeatures/feature_set.h"
#include "pkg/util/result.h"
#include "pkg/util/version.h"

namespace ks::api::nodedeclaredfeatures {

// One declared feature (upstream's Feature interface, the methods scheduling uses).
struct Feature {
  // The name nodes declare in status.declaredFeatures.
  std::string name;
  // Whether scheduling a pod with this spec needs a node that declares the feature. Cheap and pure.
  std::function<bool(const PodSpec&)> inferForScheduling;
  // The last version (inclusive) for which the feature matters for scheduling, set once every supported
  // node has it; none: no bound.
  std::optional<Version> maxVersion;
};

// The result of matching a node's features against a pod's requirements.
struct MatchResult {
  bool isMatch = false;
  // The required features the node lacks, sorted; only when !isMatch.
  std::vector<std::string> unsatisfiedRequirements;
};

// The registry of features, sorted by name, and the mapper over their names: bit i of a FeatureSet is
// registry()[i]. Immutable once built, so it may be shared between threads.
class Framework : public FeatureMapper {
 public:
  explicit Framework(std::vector<Feature> registry);

  const std::vector<Feature>& registry() const { return registry_; }

  // The features the pod needs on a node of `targetVersion` (features past their maxVersion are not
  // required); "target version cannot be nil" without a version.
  Result<FeatureSet> inferForPodScheduling(const PodSpec& spec,
                                           const std::optional<Version>& targetVersion) const;

  // Whether `node`'s status.declaredFeatures (features not known here ignored) hold every required
  // feature; "node cannot be nil" for a null node.
  Result<MatchResult> matchNode(const FeatureSet& requiredFeatures, const Node* node) const;
  // The same against an already mapped set; an error when the sets are sized differently.
  Result<MatchResult> matchNodeFeatureSet(const FeatureSet& requiredFeatures,
                                          const FeatureSet& nodeFeatures) const;

 private:
  std::vector<Feature> registry_;
};

// The framework over every feature of this release (upstream DefaultFramework); NodeInfo maps nodes'
// declared features with it.
const Framework& defaultFramework();

}  // namespace ks::api::nodedeclaredfeatures
