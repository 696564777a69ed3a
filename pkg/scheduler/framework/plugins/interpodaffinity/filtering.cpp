// Upstream plugins/interpodaffinity/filtering.go: PreFilter, its extensions, Filter.
#include <algorithm>
#include <atomic>
#include <tuple>

#include "pkg/scheduler/framework/plugins/interpodaffinity/plugin.h"

namespace ks::plugins::interpodaffinity {

namespace {

const api::Labels kNoLabels;

// Upstream topologyToMatchedTermCountList: one node's matches, merged into the map afterwards. Views
// into the node's labels and the terms' topology keys, which outlive the PreFilter call.
using PairCountList = std::vector<std::pair<TopologyPairView, int64_t>>;

void append(PairCountList& l, const api::Node& node, const std::string& topologyKey, int64_t value) {
  if (auto it = node.metadata.labels.find(topologyKey); it != node.metadata.labels.end()) {
    l.emplace_back(TopologyPairView{it->first, it->second}, value);
  }
}

void appendWithAffinityTerms(PairCountList& l, const std::vector<framework::AffinityTerm>& terms,
                             const api::Pod& pod, const api::Node& node, int64_t value) {
  if (!podMatchesAllAffinityTerms(terms, pod)) return;
  for (const auto& t : terms) append(l, node, t.topologyKey, value);
}

void appendWithAntiAffinityTerms(PairCountList& l, const std::vector<framework::AffinityTerm>& terms,
                                 const api::Pod& pod, const api::Labels& nsLabels, const api::Node& node,
                                 int64_t value) {
  for (const auto& t : terms) {
    if (t.matches(pod, nsLabels)) append(l, node, t.topologyKey, value);
  }
}

void mergeWithList(TopologyToMatchedTermCount& m, const PairCountList& l) {
  for (const auto& [pair, count] : l) {
    auto it = m.find(pair);
    if (it == m.end()) {
      m.emplace(TopologyPair{std::string(pair.key), std::string(pair.value)}, count);
    } else {
      it->second += count;
    }
  }
}

const char* const kPreFilterStateMissing =
    "error reading \"PreFilterInterPodAffinity\" from cycleState: not found";

int64_t countOf(const TopologyToMatchedTermCount& m, std::string_view key, std::string_view value) {
  auto it = m.find(TopologyPairView{key, value});
  return it == m.end() ? 0 : it->second;
}

// Whether placing the pod on the node would break an existing pod's required anti-affinity.
bool satisfyExistingPodsAntiAffinity(const PreFilterState& s, const api::Node& node) {
  if (s.existingAntiAffinityCounts.empty()) return true;
  for (const auto& [k, v] : node.metadata.labels) {
    if (countOf(s.existingAntiAffinityCounts, k, v) > 0) return false;
  }
  return true;
}

// Whether the node satisfies the incoming pod's required anti-affinity.
bool satisfyPodAntiAffinity(const PreFilterState& s, const api::Node& node) {
  if (s.antiAffinityCounts.empty()) return true;
  for (const auto& term : s.incoming->requiredAntiAffinityTerms) {
    if (auto it = node.metadata.labels.find(term.topologyKey); it != node.metadata.labels.end()) {
      if (countOf(s.antiAffinityCounts, term.topologyKey, it->second) > 0) return false;
    }
  }
  return true;
}

// Whether the node satisfies the incoming pod's required affinity.
bool satisfyPodAffinity(const PreFilterState& s, const api::Node& node) {
  bool podsExist = true;
  for (const auto& term : s.incoming->requiredAffinityTerms) {
    auto it = node.metadata.labels.find(term.topologyKey);
    // All topology labels must exist on the node.
    if (it == node.metadata.labels.end()) return false;
    if (countOf(s.affinityCounts, term.topologyKey, it->second) <= 0) podsExist = false;
  }
  if (podsExist) return true;
  // The pod may be the first of a group with affinity to itself: when no pod in the cluster matches the
  // terms, the pod matches its own terms and the node has all the topology keys, it passes.
  return s.affinityCounts.empty() &&
         podMatchesAllAffinityTerms(s.incoming->requiredAffinityTerms, *s.incoming->pod);
}

}  // namespace

void updateCount(TopologyToMatchedTermCount& m, const api::Node* node, const std::string& topologyKey,
                 int64_t value) {
  if (node == nullptr) return;
  auto label = node->metadata.labels.find(topologyKey);
  if (label == node->metadata.labels.end()) return;
  auto it = m.find(TopologyPairView{topologyKey, label->second});
  if (it == m.end()) it = m.emplace(TopologyPair{topologyKey, label->second}, 0).first;
  it->second += value;
  // value may be negative: drop entries that reach zero.
  if (it->second == 0) m.erase(it);
}

void updateWithAffinityTerms(TopologyToMatchedTermCount& m, const std::vector<framework::AffinityTerm>& terms,
                             const api::Pod& pod, const api::Node* node, int64_t value) {
  if (!podMatchesAllAffinityTerms(terms, pod)) return;
  for (const auto& t : terms) updateCount(m, node, t.topologyKey, value);
}

void updateWithAntiAffinityTerms(TopologyToMatchedTermCount& m,
                                 const std::vector<framework::AffinityTerm>& terms, const api::Pod& pod,
                                 const api::Labels& nsLabels, const api::Node* node, int64_t value) {
  for (const auto& t : terms) {
    if (t.matches(pod, nsLabels)) updateCount(m, node, t.topologyKey, value);
  }
}

bool podMatchesAllAffinityTerms(const std::vector<framework::AffinityTerm>& terms, const api::Pod& pod) {
  if (terms.empty()) return false;
  for (const auto& t : terms) {
    if (!t.matches(pod, kNoLabels)) return false;
  }
  return true;
}

bool podMatchesAnyAffinityTerms(const std::vector<framework::AffinityTerm>& terms, const api::Pod& pod) {
  return std::any_of(terms.begin(), terms.end(),
                     [&](const framework::AffinityTerm& t) { return t.matches(pod, kNoLabels); });
}

void PreFilterState::updateWithPod(const framework::PodInfo& podInfo, const api::Node* node,
                                   int64_t multiplier) {
  if (!incoming) return;
  updateWithAntiAffinityTerms(existingAntiAffinityCounts, podInfo.requiredAntiAffinityTerms(), *incoming->pod,
                              incoming->namespaceLabels, node, multiplier);
  updateWithAffinityTerms(affinityCounts, incoming->requiredAffinityTerms, podInfo.pod(), node, multiplier);
  // The incoming pod's namespace selectors are merged into its namespaces: no labels needed.
  updateWithAntiAffinityTerms(antiAffinityCounts, incoming->requiredAntiAffinityTerms, podInfo.pod(),
                              kNoLabels, node, multiplier);
}

TopologyToMatchedTermCount InterPodAffinity::getExistingAntiAffinityCounts(
    const api::Pod& pod, const api::Labels& nsLabels, std::span<const framework::NodeInfoPtr> nodes) {
  std::vector<PairCountList> lists(nodes.size());
  std::atomic<int> index{-1};
  handle_.parallelizer().until(static_cast<int>(nodes.size()), [&](int i) {
    const framework::NodeInfo& nodeInfo = *nodes[static_cast<std::size_t>(i)];
    const api::Node* node = nodeInfo.node();
    if (node == nullptr) return;
    PairCountList counts;
    for (const auto& existingPod : nodeInfo.podsWithRequiredAntiAffinity()) {
      appendWithAntiAffinityTerms(counts, existingPod->requiredAntiAffinityTerms(), pod, nsLabels, *node, 1);
    }
    if (!counts.empty()) lists[static_cast<std::size_t>(index.fetch_add(1) + 1)] = std::move(counts);
  });
  TopologyToMatchedTermCount result;
  for (int i = 0; i <= index.load(); ++i) mergeWithList(result, lists[static_cast<std::size_t>(i)]);
  return result;
}

std::pair<TopologyToMatchedTermCount, TopologyToMatchedTermCount>
InterPodAffinity::getIncomingAffinityAntiAffinityCounts(
    const std::vector<framework::AffinityTerm>& affinityTerms,
    const std::vector<framework::AffinityTerm>& antiAffinityTerms,
    std::span<const framework::NodeInfoPtr> allNodes) {
  std::pair<TopologyToMatchedTermCount, TopologyToMatchedTermCount> result;
  if (affinityTerms.empty() && antiAffinityTerms.empty()) return result;

  std::vector<PairCountList> affinityLists(allNodes.size());
  std::vector<PairCountList> antiAffinityLists(allNodes.size());
  std::atomic<int> index{-1};
  handle_.parallelizer().until(static_cast<int>(allNodes.size()), [&](int i) {
    const framework::NodeInfo& nodeInfo = *allNodes[static_cast<std::size_t>(i)];
    const api::Node* node = nodeInfo.node();
    if (node == nullptr) return;
    PairCountList affinity;
    PairCountList antiAffinity;
    for (const auto& existingPod : nodeInfo.pods()) {
      appendWithAffinityTerms(affinity, affinityTerms, existingPod->pod(), *node, 1);
      // The incoming pod's namespace selectors are merged into its namespaces: no labels needed.
      appendWithAntiAffinityTerms(antiAffinity, antiAffinityTerms, existingPod->pod(), kNoLabels, *node, 1);
    }
    if (!affinity.empty() || !antiAffinity.empty()) {
      const auto k = static_cast<std::size_t>(index.fetch_add(1) + 1);
      affinityLists[k] = std::move(affinity);
      antiAffinityLists[k] = std::move(antiAffinity);
    }
  });
  for (int i = 0; i <= index.load(); ++i) {
    mergeWithList(result.first, affinityLists[static_cast<std::size_t>(i)]);
    mergeWithList(result.second, antiAffinityLists[static_cast<std::size_t>(i)]);
  }
  return result;
}

framework::Status InterPodAffinity::preFilter(framework::CycleState& state, const framework::PodInfo& podInfo,
                                              std::span<const framework::NodeInfoPtr> allNodes,
                                              framework::PreFilterResult& /*result*/) {
  const framework::SharedLister* lister = handle_.snapshotSharedLister();
  if (lister == nullptr) {
    return framework::Status::error("failed to list NodeInfos with pods with affinity: no snapshot lister");
  }
  const auto& nodesWithRequiredAntiAffinityPods = lister->nodeInfos().havePodsWithRequiredAntiAffinityList();

  if (const auto& err = podInfo.parseError()) {
    return framework::Status(framework::Code::UnschedulableAndUnresolvable, "parsing pod: " + err->message());
  }
  // No terms of its own and no existing pod with required anti-affinity: every count below would be empty
  // and the result Skip (as upstream's), so most pods pay nothing here.
  if (nodesWithRequiredAntiAffinityPods.empty() && podInfo.requiredAffinityTerms().empty() &&
      podInfo.requiredAntiAffinityTerms().empty()) {
    return framework::Status(framework::Code::Skip);
  }

  auto incoming = std::make_shared<IncomingPod>();
  incoming->pod = podInfo.podPtr();
  incoming->requiredAffinityTerms = podInfo.requiredAffinityTerms();
  incoming->requiredAntiAffinityTerms = podInfo.requiredAntiAffinityTerms();
  for (auto& t : incoming->requiredAffinityTerms) mergeAffinityTermNamespaces(t);
  for (auto& t : incoming->requiredAntiAffinityTerms) mergeAffinityTermNamespaces(t);
  incoming->namespaceLabels = namespaceLabels(podInfo.pod().metadata.namespace_);

  auto s = std::make_unique<PreFilterState>();
  s->existingAntiAffinityCounts = getExistingAntiAffinityCounts(podInfo.pod(), incoming->namespaceLabels,
                                                                nodesWithRequiredAntiAffinityPods);
  std::tie(s->affinityCounts, s->antiAffinityCounts) = getIncomingAffinityAntiAffinityCounts(
      incoming->requiredAffinityTerms, incoming->requiredAntiAffinityTerms, allNodes);

  if (s->existingAntiAffinityCounts.empty() && incoming->requiredAffinityTerms.empty() &&
      incoming->requiredAntiAffinityTerms.empty()) {
    return framework::Status(framework::Code::Skip);
  }
  s->incoming = std::move(incoming);
  state.write(std::move(s));
  return framework::Status();
}

framework::Status InterPodAffinity::addPod(framework::CycleState& state,
                                           const framework::PodInfo& /*podToSchedule*/,
                                           const framework::PodInfo& podInfoToAdd,
                                           const framework::NodeInfo& nodeInfo) {
  auto* s = state.read<PreFilterState>();
  if (s == nullptr) return framework::Status::error(kPreFilterStateMissing);
  s->updateWithPod(podInfoToAdd, nodeInfo.node(), 1);
  return framework::Status();
}

framework::Status InterPodAffinity::removePod(framework::CycleState& state,
                                              const framework::PodInfo& /*podToSchedule*/,
                                              const framework::PodInfo& podInfoToRemove,
                                              const framework::NodeInfo& nodeInfo) {
  auto* s = state.read<PreFilterState>();
  if (s == nullptr) return framework::Status::error(kPreFilterStateMissing);
  s->updateWithPod(podInfoToRemove, nodeInfo.node(), -1);
  return framework::Status();
}

framework::Status InterPodAffinity::filter(framework::CycleState& state, const framework::PodInfo& /*pod*/,
                                           const framework::NodeInfo& nodeInfo) {
  const auto* s = state.read<PreFilterState>();
  if (s == nullptr) return framework::Status::error(kPreFilterStateMissing);
  const api::Node* node = nodeInfo.node();
  if (node == nullptr) return framework::Status::error("node not found");

  if (!satisfyPodAffinity(*s, *node)) {
    return framework::Status(framework::Code::UnschedulableAndUnresolvable,
                             std::string(kErrReasonAffinityRulesNotMatch));
  }
  if (!satisfyPodAntiAffinity(*s, *node)) {
    return framework::Status(framework::Code::Unschedulable,
                             std::string(kErrReasonAntiAffinityRulesNotMatch));
  }
  if (!satisfyExistingPodsAntiAffinity(*s, *node)) {
    return framework::Status(framework::Code::Unschedulable,
                             std::string(kErrReasonExistingAntiAffinityRulesNotMatch));
  }
  return framework::Status();
}

}  // namespace ks::plugins::interpodaffinity
