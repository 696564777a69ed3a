// Upstream plugins/interpodaffinity/scoring.go: PreScore, Score, NormalizeScore.
#include <bit>
#include <limits>

#include "pkg/scheduler/framework/plugins/interpodaffinity/match_memo.h"
#include "pkg/scheduler/framework/plugins/interpodaffinity/plugin.h"

namespace ks::plugins::interpodaffinity {

namespace {

const api::Labels kNoLabels;

// One domain's score contribution from one node (upstream's per-node scoreMap), merged into the state's
// ScoreMap afterwards. Views into the terms' topology keys and the node's labels, which outlive PreScore.
struct ScoreEntry {
  std::string_view topologyKey;
  std::string_view value;
  int64_t score = 0;
};
using ScoreEntries = std::vector<ScoreEntry>;

struct IncomingPreferred {
  const api::Pod* pod = nullptr;
  // The pod's preferred affinity terms (multiplier 1) followed by its preferred anti-affinity terms (-1),
  // with namespaceSelector merged into namespaces.
  std::vector<framework::WeightedAffinityTerm> terms;
  std::size_t affinityTerms = 0;
  api::Labels namespaceLabels;

  int64_t scoreOf(std::size_t i) const {
    return static_cast<int64_t>(terms[i].weight * (i < affinityTerms ? 1 : -1));
  }
};

void addMatchingTerms(KeySums& sums, const std::vector<framework::WeightedAffinityTerm>& terms,
                      const IncomingPreferred& incoming, MatchMemo& memo, int64_t multiplier) {
  for (const auto& t : terms) {
    if (memo.termMatches(t.term, *incoming.pod, incoming.namespaceLabels))
      sums.add(t.term.topologyKey, t.weight * multiplier);
  }
}

// Upstream processExistingPod for each of a group's pods, summed per topology key of their node.
void processExistingPods(const IncomingPreferred& incoming, const framework::PodMatchGroup& group,
                         int32_t hardPodAffinityWeight, MatchMemo& memo, KeySums& sums) {
  const framework::PodMatchIdentity& existing = *group.identity;
  const int64_t pods = group.count;
  // The incoming pod's preferred terms that the existing pods match count for (affinity) or against
  // (anti-affinity) their domain. Namespace selectors are merged: no labels needed.
  auto incomingTermMatches = [&](std::size_t i, const framework::PodMatchIdentity& id) {
    return incoming.terms[i].term.matches(id, kNoLabels);
  };
  if (incoming.terms.size() <= MatchMemo::kMaxTerms) {
    for (uint64_t bits = memo.identityBits(existing, incoming.terms.size(), incomingTermMatches); bits != 0;
         bits &= bits - 1) {
      const auto i = static_cast<std::size_t>(std::countr_zero(bits));
      sums.add(incoming.terms[i].term.topologyKey, incoming.scoreOf(i) * pods);
    }
  } else {
    for (std::size_t i = 0; i < incoming.terms.size(); ++i) {
      if (incomingTermMatches(i, existing))
        sums.add(incoming.terms[i].term.topologyKey, incoming.scoreOf(i) * pods);
    }
  }
  // Their required affinity terms that the incoming pod matches count hardPodAffinityWeight.
  if (hardPodAffinityWeight > 0) {
    for (const auto& t : *existing.requiredAffinityTerms) {
      if (memo.termMatches(t, *incoming.pod, incoming.namespaceLabels))
        sums.add(t.topologyKey, hardPodAffinityWeight * pods);
    }
  }
  // Their preferred terms that the incoming pod matches.
  addMatchingTerms(sums, *existing.preferredAffinityTerms, incoming, memo, pods);
  addMatchingTerms(sums, *existing.preferredAntiAffinityTerms, incoming, memo, -pods);
}

const char* const kPreScoreStateMissing =
    "failed to read \"PreScoreInterPodAffinity\" from cycleState: not found";

}  // namespace

framework::Status InterPodAffinity::preScore(framework::CycleState& state, const framework::PodInfo& podInfo,
                                             std::span<const framework::NodeInfoPtr> /*nodes*/) {
  const framework::SharedLister* lister = handle_.snapshotSharedLister();
  if (lister == nullptr) return framework::Status::error("empty shared lister in InterPodAffinity PreScore");

  const api::Pod& pod = podInfo.pod();
  const auto& affinity = pod.spec.affinity;
  const bool hasPreferredAffinityConstraints =
      affinity && affinity->podAffinity &&
      !affinity->podAffinity->preferredDuringSchedulingIgnoredDuringExecution.empty();
  const bool hasPreferredAntiAffinityConstraints =
      affinity && affinity->podAntiAffinity &&
      !affinity->podAntiAffinity->preferredDuringSchedulingIgnoredDuringExecution.empty();
  const bool hasConstraints = hasPreferredAffinityConstraints || hasPreferredAntiAffinityConstraints;

  // Optionally ignore existing pods' preferences when the incoming pod has none.
  if (args_.ignorePreferredTermsOfExistingPods && !hasConstraints)
    return framework::Status(framework::Code::Skip);

  // Unless the pod has preferred terms, only nodes hosting pods with affinity matter.
  const std::vector<framework::NodeInfoPtr>& allNodes =
      hasConstraints ? lister->nodeInfos().list() : lister->nodeInfos().havePodsWithAffinityList();

  // Normally caught by PreFilter.
  if (const auto& err = podInfo.parseError())
    return framework::Status::error("failed to parse pod: " + err->message());
  // No node to process gives no score (Skip below): spare the term copies and the namespace lookup.
  if (allNodes.empty()) return framework::Status(framework::Code::Skip);

  IncomingPreferred incoming;
  incoming.pod = &pod;
  incoming.terms = podInfo.preferredAffinityTerms();
  incoming.affinityTerms = incoming.terms.size();
  const auto& antiAffinityTerms = podInfo.preferredAntiAffinityTerms();
  incoming.terms.insert(incoming.terms.end(), antiAffinityTerms.begin(), antiAffinityTerms.end());
  for (auto& t : incoming.terms) mergeAffinityTermNamespaces(t.term);
  incoming.namespaceLabels = namespaceLabels(pod.metadata.namespace_);

  NodeChunks chunks(handle_.parallelizer(), allNodes.size());
  std::vector<ScoreEntries> topoScores(chunks.size());
  const int32_t hardPodAffinityWeight = args_.hardPodAffinityWeight;
  chunks.run([&](std::size_t chunk, std::size_t begin, std::size_t end, MatchMemo& memo) {
    ScoreEntries& entries = topoScores[chunk];
    entries.reserve(end - begin);
    KeySums sums;
    for (std::size_t i = begin; i < end; ++i) {
      const framework::NodeInfo& nodeInfo = *allNodes[i];
      const api::Node* node = nodeInfo.node();
      if (node == nullptr || node->metadata.labels.empty()) continue;
      sums.clear();
      for (const auto& group : nodeInfo.podMatchGroups()) {
        // Unless the pod has preferred terms, only pods with affinity matter.
        if (!hasConstraints && !group.identity->hasAffinityTerms()) continue;
        processExistingPods(incoming, group, hardPodAffinityWeight, memo, sums);
      }
      sums.forEachDomain(*node, [&](std::string_view key, std::string_view value, int64_t sum) {
        entries.push_back(ScoreEntry{key, value, sum});
      });
    }
  });

  auto s = std::make_unique<PreScoreState>();
  std::size_t totalEntries = 0;
  for (const auto& entries : topoScores) totalEntries += entries.size();
  for (const auto& entries : topoScores) {
    for (const auto& e : entries) {
      auto byKey = s->topologyScore.find(e.topologyKey);
      if (byKey == s->topologyScore.end()) {
        byKey = s->topologyScore.try_emplace(std::string(e.topologyKey)).first;
        byKey->second.reserve(totalEntries);
      }
      byKey->second[e.value] += e.score;
    }
  }
  if (s->topologyScore.empty()) return framework::Status(framework::Code::Skip);
  state.write(std::move(s));
  return framework::Status();
}

framework::Status InterPodAffinity::score(framework::CycleState& state, const framework::PodInfo& /*pod*/,
                                          const framework::NodeInfo& nodeInfo, int64_t& score) {
  score = 0;
  const auto* s = state.read<PreScoreState>();
  if (s == nullptr) return framework::Status::error(kPreScoreStateMissing);
  const api::Node* node = nodeInfo.node();
  if (node == nullptr) return framework::Status::error("node not found");
  int64_t sum = 0;
  for (const auto& [tpKey, tpValues] : s->topologyScore) {
    if (auto label = node->metadata.labels.find(tpKey); label != node->metadata.labels.end()) {
      if (const int64_t* value = tpValues.find(label->second); value != nullptr) sum += *value;
    }
  }
  score = sum;
  return framework::Status();
}

framework::Status InterPodAffinity::normalizeScore(framework::CycleState& state,
                                                   const framework::PodInfo& /*pod*/,
                                                   framework::NodeScoreList& scores) {
  const auto* s = state.read<PreScoreState>();
  if (s == nullptr) return framework::Status::error(kPreScoreStateMissing);
  if (s->topologyScore.empty()) return framework::Status();

  int64_t minCount = std::numeric_limits<int64_t>::max();
  int64_t maxCount = std::numeric_limits<int64_t>::min();
  for (const auto& ns : scores) {
    if (ns.score > maxCount) maxCount = ns.score;
    if (ns.score < minCount) minCount = ns.score;
  }
  const int64_t maxMinDiff = maxCount - minCount;
  for (auto& ns : scores) {
    double fScore = 0;
    if (maxMinDiff > 0) {
      fScore = static_cast<double>(framework::kMaxNodeScore) *
               (static_cast<double>(ns.score - minCount) / static_cast<double>(maxMinDiff));
    }
    ns.score = static_cast<int64_t>(fScore);
  }
  return framework::Status();
}

}  // namespace ks::plugins::interpodaffinity
