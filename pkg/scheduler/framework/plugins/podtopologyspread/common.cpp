#include "pkg/scheduler/framework/plugins/podtopologyspread/common.h"

#include "pkg/api/taints.h"
#include "pkg/scheduler/framework/plugins/helper/taint.h"

namespace ks::plugins::podtopologyspread {

namespace {

NodeInclusionPolicy policyOf(const std::string& value) {
  return value == "Honor" ? NodeInclusionPolicy::Honor : NodeInclusionPolicy::Ignore;
}

// mergeLabelSetWithSelector: the set's key=value requirements ANDed with the selector's; a Nothing
// selector (nil labelSelector) stays Nothing.
api::Selector mergeLabelSetWithSelector(const api::Labels& matchLabels, const api::Selector& s) {
  if (s.isNothing()) return s;
  return api::Selector::fromSet(matchLabels).add(s.requirements());
}

}  // namespace

bool TopologySpreadConstraint::matchNodeInclusionPolicies(
    const api::Pod& pod, const api::Node& node, const api::RequiredNodeAffinity& requiredNodeAffinity) const {
  // Parse errors of the pod's node affinity count as no match, for backwards compatibility.
  if (nodeAffinityPolicy == NodeInclusionPolicy::Honor && !requiredNodeAffinity.match(node)) return false;
  if (nodeTaintsPolicy == NodeInclusionPolicy::Honor &&
      api::findMatchingUntoleratedTaint(node.spec.taints, pod.spec.tolerations,
                                        helper::doNotScheduleTaintsFilter) != nullptr) {
    return false;
  }
  return true;
}

Result<std::vector<TopologySpreadConstraint>> filterTopologySpreadConstraints(
    const std::vector<api::TopologySpreadConstraint>& constraints, const api::Labels& podLabels,
    std::string_view action, const Features& features) {
  std::vector<TopologySpreadConstraint> result;
  for (const auto& c : constraints) {
    if (c.whenUnsatisfiable != action) continue;
    auto selector = api::Selector::fromLabelSelector(c.labelSelector);
    if (!selector.ok()) return selector.error();

    TopologySpreadConstraint tsc;
    tsc.selector = std::move(selector).value();
    if (features.enableMatchLabelKeysInPodTopologySpread && !c.matchLabelKeys.empty()) {
      api::Labels matchLabels;
      for (const auto& key : c.matchLabelKeys) {
        if (auto it = podLabels.find(key); it != podLabels.end()) matchLabels[key] = it->second;
      }
      if (!matchLabels.empty()) tsc.selector = mergeLabelSetWithSelector(matchLabels, tsc.selector);
    }
    tsc.maxSkew = c.maxSkew;
    tsc.topologyKey = c.topologyKey;
    tsc.minDomains = c.minDomains.value_or(1);
    if (features.enableNodeInclusionPolicyInPodTopologySpread) {
      if (c.nodeAffinityPolicy) tsc.nodeAffinityPolicy = policyOf(*c.nodeAffinityPolicy);
      if (c.nodeTaintsPolicy) tsc.nodeTaintsPolicy = policyOf(*c.nodeTaintsPolicy);
    }
    result.push_back(std::move(tsc));
  }
  return result;
}

bool nodeLabelsMatchSpreadConstraints(const api::Labels& nodeLabels,
                                      std::span<const TopologySpreadConstraint> constraints) {
  for (const auto& c : constraints) {
    if (!nodeLabels.contains(c.topologyKey)) return false;
  }
  return true;
}

int countPodsMatchSelector(const std::vector<framework::PodMatchGroup>& pods, const api::Selector& selector,
                           const std::string& ns) {
  if (selector.empty()) return 0;
  int count = 0;
  for (const auto& group : pods) {
    const framework::PodMatchIdentity& p = *group.identity;
    // Terminating pods don't count (kubernetes#87621).
    if (p.terminating || p.namespace_ != ns) continue;
    if (selector.matches(p.labels)) count += static_cast<int>(group.count);
  }
  return count;
}

bool podLabelsMatchSpreadConstraints(std::span<const TopologySpreadConstraint> constraints,
                                     const api::Labels& labels) {
  for (const auto& c : constraints) {
    if (c.selector.matches(labels)) return true;
  }
  return false;
}

const std::string& labelValueOrEmpty(const api::Labels& labels, const std::string& key) {
  static const std::string kEmpty;
  auto it = labels.find(key);
  return it == labels.end() ? kEmpty : it->second;
}

}  // namespace ks::plugins::podtopologyspread
