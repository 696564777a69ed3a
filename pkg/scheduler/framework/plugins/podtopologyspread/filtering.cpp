// PreFilter / PreFilterExtensions / Filter (upstream podtopologyspread/filtering.go).
#include <utility>

#include "pkg/scheduler/framework/plugins/podtopologyspread/plugin.h"

namespace ks::plugins::podtopologyspread {

namespace {

constexpr std::string_view kPreFilterStateNotFound =
    "reading \"PreFilterPodTopologySpread\" from cycleState: not found";

// sizeHeuristic: a hostname constraint has about one domain per node.
size_t sizeHeuristic(size_t nodes, const TopologySpreadConstraint& c) {
  return c.topologyKey == kLabelHostname ? nodes : 0;
}

}  // namespace

void CriticalPaths::update(const std::string& tpVal, int num) {
  // Is tpVal already one of the two paths?
  int i = -1;
  if (tpVal == paths[0].topologyValue) {
    i = 0;
  } else if (tpVal == paths[1].topologyValue) {
    i = 1;
  }
  if (i >= 0) {
    paths[i].matchNum = num;
    if (paths[0].matchNum > paths[1].matchNum) std::swap(paths[0], paths[1]);
  } else if (num < paths[0].matchNum) {
    paths[1] = paths[0];
    paths[0].topologyValue = tpVal;
    paths[0].matchNum = num;
  } else if (num < paths[1].matchNum) {
    paths[1].topologyValue = tpVal;
    paths[1].matchNum = num;
  }
}

const std::vector<TopologySpreadConstraint>& PreFilterState::constraints() const {
  static const std::vector<TopologySpreadConstraint> kNone;
  return pod ? pod->constraints : kNone;
}

int PreFilterState::minMatchNum(size_t i, int32_t minDomains) const {
  // With fewer eligible domains than minDomains the global minimum is treated as 0.
  if (tpValueToMatchNum[i].size() < static_cast<size_t>(minDomains)) return 0;
  return criticalPaths[i].paths[0].matchNum;
}

Result<std::unique_ptr<PreFilterState>> PodTopologySpread::calPreFilterState(
    const api::Pod& pod, std::span<const framework::NodeInfoPtr> nodes) {
  auto constraints = getConstraints(pod);
  if (!constraints.ok()) return constraints.error().wrap("get constraints from pod");
  // No constraints: nothing to allocate (PreFilter skips).
  if (constraints->empty()) return std::unique_ptr<PreFilterState>();

  auto s = std::make_unique<PreFilterState>();
  auto podData = std::make_shared<PreFilterPod>();
  podData->constraints = std::move(constraints).value();
  podData->requiredNodeAffinity = api::RequiredNodeAffinity::fromPod(pod);
  const auto& cs = podData->constraints;
  const size_t nc = cs.size();
  podData->selfMatchNum.reserve(nc);
  for (const auto& c : cs) podData->selfMatchNum.push_back(c.selector.matches(pod.metadata.labels) ? 1 : 0);

  s->criticalPaths.resize(nc);
  s->tpValueToMatchNum.resize(nc);
  for (size_t i = 0; i < nc; ++i) s->tpValueToMatchNum[i].reserve(sizeHeuristic(nodes.size(), cs[i]));

  // counts[n * nc + i]: matching pods of constraint i on node n, -1 when the node doesn't count for it.
  // Each piece writes its own slots; the domains are summed afterwards on this thread.
  std::vector<int> counts(nodes.size() * nc, -1);
  const api::RequiredNodeAffinity& requiredNodeAffinity = podData->requiredNodeAffinity;
  const bool inclusionPolicies = features_.enableNodeInclusionPolicyInPodTopologySpread;
  handle_.parallelizer().until(static_cast<int>(nodes.size()), [&](int n) {
    const framework::NodeInfo& nodeInfo = *nodes[static_cast<size_t>(n)];
    const api::Node* node = nodeInfo.node();
    if (node == nullptr) return;
    // Without inclusion policies, spreading only considers nodes matching the pod's node affinity.
    // Parse errors count as no match, for backwards compatibility.
    if (!inclusionPolicies && !requiredNodeAffinity.match(*node)) return;
    // The node must have every topologyKey.
    if (!nodeLabelsMatchSpreadConstraints(node->metadata.labels, cs)) return;
    for (size_t i = 0; i < nc; ++i) {
      if (inclusionPolicies && !cs[i].matchNodeInclusionPolicies(pod, *node, requiredNodeAffinity)) continue;
      counts[static_cast<size_t>(n) * nc + i] =
          countPodsMatchSelector(nodeInfo.podMatchGroups(), cs[i].selector, pod.metadata.namespace_);
    }
  });

  for (size_t n = 0; n < nodes.size(); ++n) {
    for (size_t i = 0; i < nc; ++i) {
      const int count = counts[n * nc + i];
      if (count < 0) continue;
      s->tpValueToMatchNum[i][nodes[n]->node()->metadata.labels.at(cs[i].topologyKey)] += count;
    }
  }
  for (size_t i = 0; i < nc; ++i) {
    for (const auto& [value, num] : s->tpValueToMatchNum[i]) s->criticalPaths[i].update(value, num);
  }
  s->pod = std::move(podData);
  return s;
}

framework::Status PodTopologySpread::preFilter(framework::CycleState& state, const framework::PodInfo& pod,
                                               std::span<const framework::NodeInfoPtr> nodes,
                                               framework::PreFilterResult& /*result*/) {
  auto s = calPreFilterState(pod.pod(), nodes);
  if (!s.ok()) return framework::Status::fromError(s.error());
  // A pod without hard constraints (its own or default ones) has nothing to filter.
  if (*s == nullptr) return framework::Status(framework::Code::Skip);
  state.write(std::move(s).value());
  return framework::Status();
}

void PodTopologySpread::updateWithPod(PreFilterState& s, const api::Pod& updatedPod,
                                      const api::Pod& preemptorPod, const api::Node* node, int delta) const {
  if (updatedPod.metadata.namespace_ != preemptorPod.metadata.namespace_ || node == nullptr) return;
  const auto& cs = s.constraints();
  if (cs.empty() || !nodeLabelsMatchSpreadConstraints(node->metadata.labels, cs)) return;

  // s.pod holds the preemptor's compiled required node affinity (the state belongs to that pod).
  const api::RequiredNodeAffinity& requiredNodeAffinity = s.pod->requiredNodeAffinity;
  const bool inclusionPolicies = features_.enableNodeInclusionPolicyInPodTopologySpread;
  // Without inclusion policies, spreading only considers nodes matching the pod's node affinity.
  if (!inclusionPolicies && !requiredNodeAffinity.match(*node)) return;

  for (size_t i = 0; i < cs.size(); ++i) {
    if (!cs[i].selector.matches(updatedPod.metadata.labels)) continue;
    if (inclusionPolicies && !cs[i].matchNodeInclusionPolicies(preemptorPod, *node, requiredNodeAffinity)) {
      continue;
    }
    const std::string& v = node->metadata.labels.at(cs[i].topologyKey);
    int& num = s.tpValueToMatchNum[i][v];
    num += delta;
    s.criticalPaths[i].update(v, num);
  }
}

framework::Status PodTopologySpread::addPod(framework::CycleState& state,
                                            const framework::PodInfo& podToSchedule,
                                            const framework::PodInfo& podInfoToAdd,
                                            const framework::NodeInfo& nodeInfo) {
  auto* s = state.read<PreFilterState>();
  if (s == nullptr) return framework::Status::error(std::string(kPreFilterStateNotFound));
  updateWithPod(*s, podInfoToAdd.pod(), podToSchedule.pod(), nodeInfo.node(), 1);
  return framework::Status();
}

framework::Status PodTopologySpread::removePod(framework::CycleState& state,
                                               const framework::PodInfo& podToSchedule,
                                               const framework::PodInfo& podInfoToRemove,
                                               const framework::NodeInfo& nodeInfo) {
  auto* s = state.read<PreFilterState>();
  if (s == nullptr) return framework::Status::error(std::string(kPreFilterStateNotFound));
  updateWithPod(*s, podInfoToRemove.pod(), podToSchedule.pod(), nodeInfo.node(), -1);
  return framework::Status();
}

framework::Status PodTopologySpread::filter(framework::CycleState& state, const framework::PodInfo& /*pod*/,
                                            const framework::NodeInfo& nodeInfo) {
  const auto* s = state.read<PreFilterState>();
  if (s == nullptr) return framework::Status::error(std::string(kPreFilterStateNotFound));
  // An empty state is legit: it tolerates every pod.
  const auto& cs = s->constraints();
  if (cs.empty()) return framework::Status();
  const api::Node* node = nodeInfo.node();
  if (node == nullptr) return framework::Status::error("node not found");

  const api::Labels& nodeLabels = node->metadata.labels;
  for (size_t i = 0; i < cs.size(); ++i) {
    const auto& c = cs[i];
    auto tpVal = nodeLabels.find(c.topologyKey);
    if (tpVal == nodeLabels.end()) {
      return framework::Status(framework::Code::UnschedulableAndUnresolvable,
                               std::string(kErrReasonNodeLabelNotMatch));
    }
    // 'existing matching num' + 'if self-match (1 or 0)' - 'global minimum' <= 'maxSkew'
    const int minMatchNum = s->minMatchNum(i, c.minDomains);
    const auto& domains = s->tpValueToMatchNum[i];
    const auto found = domains.find(tpVal->second);
    const int matchNum = found == domains.end() ? 0 : found->second;
    const int skew = matchNum + s->pod->selfMatchNum[i] - minMatchNum;
    if (skew > c.maxSkew) {
      return framework::Status(framework::Code::Unschedulable, std::string(kErrReasonConstraintsNotMatch));
    }
  }
  return framework::Status();
}

}  // namespace ks::plugins::podtopologyspread
