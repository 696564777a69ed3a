#pragma once
// The parsed form of a pod's topology spread constraints and the helpers PreFilter/Filter, PreScore/Score
// and the queueing hints share (upstream podtopologyspread/common.go).

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/core.h"
#include "pkg/api/labels.h"
#include "pkg/api/nodeselector.h"
#include "pkg/scheduler/framework/types.h"
#include "pkg/util/result.h"

namespace ks::plugins::podtopologyspread {

// Well-known node labels (v1.LabelHostname, v1.LabelTopologyZone).
inline constexpr std::string_view kLabelHostname = "kubernetes.io/hostname";
inline constexpr std::string_view kLabelTopologyZone = "topology.kubernetes.io/zone";

// v1.UnsatisfiableConstraintAction values.
inline constexpr std::string_view kDoNotSchedule = "DoNotSchedule";
inline constexpr std::string_view kScheduleAnyway = "ScheduleAnyway";

// v1.NodeInclusionPolicy: whether node affinity / taints decide which nodes count as domains. Any
// value other than "Honor" acts as Ignore (upstream only compares with Honor).
enum class NodeInclusionPolicy : uint8_t { Ignore, Honor };

// Upstream topologySpreadConstraint: a v1.TopologySpreadConstraint with its selector compiled (and
// matchLabelKeys merged in) and the defaults applied.
struct TopologySpreadConstraint {
  int32_t maxSkew = 0;
  std::string topologyKey;
  api::Selector selector;
  int32_t minDomains = 1;
  NodeInclusionPolicy nodeAffinityPolicy = NodeInclusionPolicy::Honor;
  NodeInclusionPolicy nodeTaintsPolicy = NodeInclusionPolicy::Ignore;

  // Whether `node` counts for this constraint of `pod` under the inclusion policies: with Honor node
  // affinity it must match `requiredNodeAffinity` (the pod's; parse errors are no match), with Honor
  // taints the pod must tolerate its NoSchedule/NoExecute taints. Allocates nothing.
  bool matchNodeInclusionPolicies(const api::Pod& pod, const api::Node& node,
                                  const api::RequiredNodeAffinity& requiredNodeAffinity) const;

  bool operator==(const TopologySpreadConstraint&) const = default;
};

// The feature gates the plugin reads (upstream feature.Features); defaults are v1.34's.
struct Features {
  // NodeInclusionPolicyInPodTopologySpread (GA, locked on in v1.34): nodeAffinityPolicy and
  // nodeTaintsPolicy are honoured; when off, spreading only counts nodes matching the pod's required
  // node affinity.
  bool enableNodeInclusionPolicyInPodTopologySpread = true;
  // MatchLabelKeysInPodTopologySpread (beta, on in v1.34): the pod's values of matchLabelKeys are ANDed
  // into the selector. (With MatchLabelKeysInPodTopologySpreadSelectorMerge the apiserver has usually
  // merged them into labelSelector already; merging again is harmless, as upstream's scheduler does.)
  bool enableMatchLabelKeysInPodTopologySpread = true;
};

// filterTopologySpreadConstraints: the constraints whose whenUnsatisfiable is `action`, parsed. Error is
// the label selector's parse error.
Result<std::vector<TopologySpreadConstraint>> filterTopologySpreadConstraints(
    const std::vector<api::TopologySpreadConstraint>& constraints, const api::Labels& podLabels,
    std::string_view action, const Features& features);

// True when the node has a label for every constraint's topologyKey.
bool nodeLabelsMatchSpreadConstraints(const api::Labels& nodeLabels,
                                      std::span<const TopologySpreadConstraint> constraints);

// The number of a node's pods (given as its podMatchGroups) in `ns`, not terminating, whose labels match
// `selector`. An empty (match everything) selector counts nothing, as upstream. Allocates nothing.
int countPodsMatchSelector(const std::vector<framework::PodMatchGroup>& pods, const api::Selector& selector,
                           const std::string& ns);

// True when `labels` match the selector of any constraint.
bool podLabelsMatchSpreadConstraints(std::span<const TopologySpreadConstraint> constraints,
                                     const api::Labels& labels);

// The value of `key` in `labels`, or "" when absent (a Go map read).
const std::string& labelValueOrEmpty(const api::Labels& labels, const std::string& key);

}  // namespace ks::plugins::podtopologyspread
