// Upstream plugins/interpodaffinity/scoring.go: PreScore, Score, NormalizeScore.
#include <atomic>
#include <limits>

#include "pkg/scheduler/framework/plugins/interpodaffinity/plugin.h"

namespace ks::plugins::interpodaffinity {

namespace {

const api::Labels kNoLabels;

// One node's score contributions (upstream's per-node scoreMap), merged into the state's ScoreMap
// afterwards. Views into the terms' topology keys and the node's labels, which outlive PreScore.
struct ScoreEntry {
  std::string_view topologyKey;
  std::string_view value;
  int64_t score = 0;
};
using ScoreEntries = std::vector<ScoreEntry>;

void processTerm(ScoreEntries& out, const framework::AffinityTerm& term, int32_t weight, const api::Pod& pod,
                 const api::Labels& nsLabels, const api::Node& node, int32_t multiplier) {
  if (!term.matches(pod, nsLabels)) return;
  if (auto it = node.metadata.labels.find(term.topologyKey); it != node.metadata.labels.end()) {
    out.push_back(ScoreEntry{term.topologyKey, it->second, static_cast<int64_t>(weight * multiplier)});
  }
}

void processTerms(ScoreEntries& out, const std::vector<framework::WeightedAffinityTerm>& terms,
                  const api::Pod& pod, const api::Labels& nsLabels, const api::Node& node,
                  int32_t multiplier) {
  for (const auto& t : terms) processTerm(out, t.term, t.weight, pod, nsLabels, node, multiplier);
}

struct IncomingPreferred {
  const api::Pod* pod = nullptr;
  // The pod's preferred terms with namespaceSelector merged into namespaces.
  std::vector<framework::WeightedAffinityTerm> affinityTerms;
  std::vector<framework::WeightedAffinityTerm> antiAffinityTerms;
  api::Labels namespaceLabels;
};

void processExistingPod(const IncomingPreferred& incoming, const framework::PodInfo& existingPod,
                        const api::Node& existingPodNode, int32_t hardPodAffinityWeight, ScoreEntries& out) {
  if (existingPodNode.metadata.labels.empty()) return;
  const api::Pod& pod = *incoming.pod;
  // The incoming pod's preferred terms that the existing pod matches count for (affinity) or against
  // (anti-affinity) the existing pod's domain. Namespace selectors are merged: no labels needed.
  processTerms(out, incoming.affinityTerms, existingPod.pod(), kNoLabels, existingPodNode, 1);
  processTerms(out, incoming.antiAffinityTerms, existingPod.pod(), kNoLabels, existingPodNode, -1);
  // The existing pod's required affinity terms that the incoming pod matches count hardPodAffinityWeight.
  if (hardPodAffinityWeight > 0) {
    for (const auto& t : existingPod.requiredAffinityTerms()) {
      processTerm(out, t, hardPodAffinityWeight, pod, incoming.namespaceLabels, existingPodNode, 1);
    }
  }
  // The existing pod's preferred terms that the incoming pod matches.
  processTerms(out, existingPod.preferredAffinityTerms(), pod, incoming.namespaceLabels, existingPodNode, 1);
  processTerms(out, existingPod.preferredAntiAffinityTerms(), pod, incoming.namespaceLabels, existingPodNode,
               -1);
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
  incoming.affinityTerms = podInfo.preferredAffinityTerms();
  incoming.antiAffinityTerms = podInfo.preferredAntiAffinityTerms();
  for (auto& t : incoming.affinityTerms) mergeAffinityTermNamespaces(t.term);
  for (auto& t : incoming.antiAffinityTerms) mergeAffinityTermNamespaces(t.term);
  incoming.namespaceLabels = namespaceLabels(pod.metadata.namespace_);

  std::vector<ScoreEntries> topoScores(allNodes.size());
  std::atomic<int> index{-1};
  const int32_t hardPodAffinityWeight = args_.hardPodAffinityWeight;
  handle_.parallelizer().until(static_cast<int>(allNodes.size()), [&](int i) {
    const framework::NodeInfo& nodeInfo = *allNodes[static_cast<std::size_t>(i)];
    const api::Node* node = nodeInfo.node();
    if (node == nullptr) return;
    // Unless the pod has preferred terms, only pods with affinity matter.
    const auto& podsToProcess = hasConstraints ? nodeInfo.pods() : nodeInfo.podsWithAffinity();
    ScoreEntries topoScore;
    for (const auto& existingPod : podsToProcess) {
      processExistingPod(incoming, *existingPod, *node, hardPodAffinityWeight, topoScore);
    }
    if (!topoScore.empty())
      topoScores[static_cast<std::size_t>(index.fetch_add(1) + 1)] = std::move(topoScore);
  });
  if (index.load() == -1) return framework::Status(framework::Code::Skip);

  auto s = std::make_unique<PreScoreState>();
  for (int i = 0; i <= index.load(); ++i) {
    for (const auto& e : topoScores[static_cast<std::size_t>(i)]) {
      auto byKey = s->topologyScore.find(e.topologyKey);
      if (byKey == s->topologyScore.end())
        byKey = s->topologyScore.try_emplace(std::string(e.topologyKey)).first;
      auto byValue = byKey->second.find(e.value);
      if (byValue == byKey->second.end()) byValue = byKey->second.emplace(std::string(e.value), 0).first;
      byValue->second += e.score;
    }
  }
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
      if (auto it = tpValues.find(label->second); it != tpValues.end()) sum += it->second;
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
