// Upstream plugins/interpodaffinity/filtering.go: PreFilter, its extensions, Filter.
#include <algorithm>
#include <tuple>

#include "pkg/scheduler/framework/plugins/interpodaffinity/match_memo.h"
#include "pkg/scheduler/framework/plugins/interpodaffinity/plugin.h"

namespace ks::plugins::interpodaffinity {

namespace {

const api::Labels kNoLabels;

// Upstream topologyToMatchedTermCountList: one chunk of nodes' matches, merged into the map afterwards.
// Views into the nodes' labels, which outlive the PreFilter call.
struct DomainCount {
  std::string_view key;
  std::string_view value;
  int64_t count = 0;
};
using DomainCounts = std::vector<DomainCount>;

void appendDomains(DomainCounts& l, const KeySums& sums, const api::Node& node) {
  sums.forEachDomain(node, [&](std::string_view key, std::string_view value, int64_t count) {
    l.push_back(DomainCount{key, value, count});
  });
}

// Merges the chunks' lists into `m` (upstream mergeWithList, called per list).
void mergeLists(TopologyToMatchedTermCount& m, const std::vector<DomainCounts>& lists) {
  std::size_t domains = 0;
  for (const auto& l : lists) domains += l.size();
  m.reserve(domains);
  for (const auto& l : lists) {
    for (const auto& d : l) m.add(d.key, d.value, d.count);
  }
  m.reserve(0);
}

const char* const kPreFilterStateMissing =
    "error reading \"PreFilterInterPodAffinity\" from cycleState: not found";

// Whether placing the pod on the node would break an existing pod's required anti-affinity.
bool satisfyExistingPodsAntiAffinity(const PreFilterState& s, const api::Node& node) {
  return !s.existingAntiAffinityCounts.anyPositive(node.metadata.labels);
}

// Whether the node satisfies the incoming pod's required anti-affinity.
bool satisfyPodAntiAffinity(const PreFilterState& s, const api::Node& node) {
  if (s.antiAffinityCounts.empty()) return true;
  for (const auto& term : s.incoming->requiredAntiAffinityTerms) {
    if (auto it = node.metadata.labels.find(term.topologyKey); it != node.metadata.labels.end()) {
      if (s.antiAffinityCounts.count(term.topologyKey, it->second) > 0) return false;
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
    if (s.affinityCounts.count(term.topologyKey, it->second) <= 0) podsExist = false;
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
  m.add(topologyKey, label->second, value);
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
  NodeChunks chunks(handle_.parallelizer(), nodes.size());
  std::vector<DomainCounts> lists(chunks.size());
  chunks.run([&](std::size_t chunk, std::size_t begin, std::size_t end, MatchMemo& memo) {
    KeySums sums;
    for (std::size_t i = begin; i < end; ++i) {
      const framework::NodeInfo& nodeInfo = *nodes[i];
      const api::Node* node = nodeInfo.node();
      if (node == nullptr) continue;
      sums.clear();
      for (const auto& group : nodeInfo.podMatchGroups()) {
        for (const auto& t : *group.identity->requiredAntiAffinityTerms) {
          if (memo.termMatches(t, pod, nsLabels)) sums.add(t.topologyKey, group.count);
        }
      }
      appendDomains(lists[chunk], sums, *node);
    }
  });
  TopologyToMatchedTermCount result;
  mergeLists(result, lists);
  return result;
}

std::pair<TopologyToMatchedTermCount, TopologyToMatchedTermCount>
InterPodAffinity::getIncomingAffinityAntiAffinityCounts(
    const std::vector<framework::AffinityTerm>& affinityTerms,
    const std::vector<framework::AffinityTerm>& antiAffinityTerms,
    std::span<const framework::NodeInfoPtr> allNodes) {
  std::pair<TopologyToMatchedTermCount, TopologyToMatchedTermCount> result;
  if (affinityTerms.empty() && antiAffinityTerms.empty()) return result;

  // An existing pod's match bits: bit 0 when it matches all affinity terms, bit 1 + i when it matches
  // anti-affinity term i. The incoming pod's namespace selectors are merged into its namespaces: no labels
  // needed.
  auto matchBit = [&](std::size_t bit, const framework::PodMatchIdentity& id) {
    if (bit == 0) {
      return !affinityTerms.empty() && std::all_of(affinityTerms.begin(), affinityTerms.end(),
                                                   [&](const auto& t) { return t.matches(id, kNoLabels); });
    }
    return antiAffinityTerms[bit - 1].matches(id, kNoLabels);
  };
  const std::size_t bits = 1 + antiAffinityTerms.size();
  NodeChunks chunks(handle_.parallelizer(), allNodes.size());
  std::vector<DomainCounts> affinityLists(chunks.size());
  std::vector<DomainCounts> antiAffinityLists(chunks.size());
  chunks.run([&](std::size_t chunk, std::size_t begin, std::size_t end, MatchMemo& memo) {
    KeySums affinity;
    KeySums antiAffinity;
    for (std::size_t i = begin; i < end; ++i) {
      const framework::NodeInfo& nodeInfo = *allNodes[i];
      const api::Node* node = nodeInfo.node();
      if (node == nullptr) continue;
      affinity.clear();
      antiAffinity.clear();
      for (const auto& group : nodeInfo.podMatchGroups()) {
        const framework::PodMatchIdentity& id = *group.identity;
        auto matches = [&](std::size_t bit) {
          if (bits > MatchMemo::kMaxTerms) return matchBit(bit, id);
          return ((memo.identityBits(id, bits, matchBit) >> bit) & 1) != 0;
        };
        if (matches(0)) {
          for (const auto& t : affinityTerms) affinity.add(t.topologyKey, group.count);
        }
        for (std::size_t a = 0; a < antiAffinityTerms.size(); ++a) {
          if (matches(a + 1)) antiAffinity.add(antiAffinityTerms[a].topologyKey, group.count);
        }
      }
      appendDomains(affinityLists[chunk], affinity, *node);
      appendDomains(antiAffinityLists[chunk], antiAffinity, *node);
    }
  });
  mergeLists(result.first, affinityLists);
  mergeLists(result.second, antiAffinityLists);
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
