// PreScore / Score / NormalizeScore (upstream podtopologyspread/scoring.go).
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>

#include "pkg/scheduler/framework/plugins/podtopologyspread/plugin.h"

namespace ks::plugins::podtopologyspread {

namespace {

constexpr int64_t kInvalidScore = -1;

// topologyNormalizingWeight: log(size + 2). size is at least 1 when any feasible node has the keys (in
// [1.09, 8.52] for up to 5k nodes); 0 only when no node has them, and then every node scores 0 anyway.
double topologyNormalizingWeight(size_t size) {
  return std::log(static_cast<double>(size + 2));
}

// scoreForCount: the count weighted by its topology, plus maxSkew-1 so that differences between domains
// are watered down as maxSkew tolerates them.
double scoreForCount(int64_t cnt, int32_t maxSkew, double tpWeight) {
  return static_cast<double>(cnt) * tpWeight + static_cast<double>(maxSkew - 1);
}

const PreScoreData* readPreScoreData(const framework::CycleState& state) {
  const auto* s = state.read<PreScoreState>();
  return s == nullptr ? nullptr : s->data.get();
}

constexpr std::string_view kPreScoreStateNotFound =
    "error reading \"PreScorePodTopologySpread\" from cycleState: not found";

}  // namespace

Result<std::shared_ptr<PreScoreData>> PodTopologySpread::initPreScoreState(
    const api::Pod& pod, std::span<const framework::NodeInfoPtr> filteredNodes,
    bool requireAllTopologies) const {
  std::vector<TopologySpreadConstraint> constraints;
  if (!pod.spec.topologySpreadConstraints.empty()) {
    auto cs = filterTopologySpreadConstraints(pod.spec.topologySpreadConstraints, pod.metadata.labels,
                                              kScheduleAnyway, features_);
    if (!cs.ok()) return cs.error().wrap("obtaining pod's soft topology spread constraints");
    constraints = std::move(cs).value();
  } else {
    auto cs = buildDefaultConstraints(pod, kScheduleAnyway);
    if (!cs.ok()) return cs.error().wrap("setting default soft topology spread constraints");
    constraints = std::move(cs).value();
  }
  if (constraints.empty()) return std::shared_ptr<PreScoreData>();

  auto s = std::make_shared<PreScoreData>();
  s->constraints = std::move(constraints);

  const size_t nc = s->constraints.size();
  s->topologyValueToPodCounts.resize(nc);
  std::vector<size_t> topoSize(nc, 0);
  for (const auto& nodeInfo : filteredNodes) {
    const api::Node* node = nodeInfo->node();
    if (node == nullptr) continue;
    if (requireAllTopologies && !nodeLabelsMatchSpreadConstraints(node->metadata.labels, s->constraints)) {
      // Nodes missing some topologyKey are not scored.
      s->ignoredNodes.insert(node->metadata.name);
      continue;
    }
    for (size_t i = 0; i < nc; ++i) {
      const auto& c = s->constraints[i];
      // Per-node counts are taken in Score.
      if (c.topologyKey == kLabelHostname) continue;
      // A missing key reads as "" (only possible with system defaulting, whose nodes without a zone
      // form one domain).
      if (s->topologyValueToPodCounts[i]
              .emplace(labelValueOrEmpty(node->metadata.labels, c.topologyKey), 0)
              .second) {
        ++topoSize[i];
      }
    }
  }

  s->topologyNormalizingWeight.resize(nc);
  for (size_t i = 0; i < nc; ++i) {
    size_t sz = topoSize[i];
    if (s->constraints[i].topologyKey == kLabelHostname) sz = filteredNodes.size() - s->ignoredNodes.size();
    s->topologyNormalizingWeight[i] = topologyNormalizingWeight(sz);
  }
  return s;
}

framework::Status PodTopologySpread::preScore(framework::CycleState& state, const framework::PodInfo& podInfo,
                                              std::span<const framework::NodeInfoPtr> filteredNodes) {
  const framework::SharedLister* lister = handle_.snapshotSharedLister();
  if (lister == nullptr) return framework::Status::error("getting all nodes: SnapshotSharedlister is nil");
  const auto& allNodes = lister->nodeInfos().list();
  // No need to score.
  if (allNodes.empty()) return framework::Status(framework::Code::Skip);

  const api::Pod& pod = podInfo.pod();
  // Only non-system-default spreading requires nodes to have every topology label, so that nodes without
  // a zone label still get hostname spreading.
  const bool requireAllTopologies = !pod.spec.topologySpreadConstraints.empty() || !systemDefaulted_;
  auto initialized = initPreScoreState(pod, filteredNodes, requireAllTopologies);
  if (!initialized.ok())
    return framework::Status::fromError(initialized.error().wrap("calculating preScoreState"));
  std::shared_ptr<PreScoreData> s = std::move(initialized).value();
  // Skip when the pod has no soft constraints.
  if (s == nullptr) return framework::Status(framework::Code::Skip);

  const auto& cs = s->constraints;
  // Parse errors of the pod's node affinity count as no match, for backwards compatibility.
  const auto requiredNodeAffinity = api::RequiredNodeAffinity::fromPod(pod);
  const bool inclusionPolicies = features_.enableNodeInclusionPolicyInPodTopologySpread;
  handle_.parallelizer().until(static_cast<int>(allNodes.size()), [&](int n) {
    const framework::NodeInfo& nodeInfo = *allNodes[static_cast<size_t>(n)];
    const api::Node* node = nodeInfo.node();
    if (node == nullptr) return;
    // Without inclusion policies the node must satisfy the pod's nodeSelector / node affinity.
    if (!inclusionPolicies && !requiredNodeAffinity.match(*node)) return;
    if (requireAllTopologies && !nodeLabelsMatchSpreadConstraints(node->metadata.labels, cs)) return;
    for (size_t i = 0; i < cs.size(); ++i) {
      if (inclusionPolicies && !cs[i].matchNodeInclusionPolicies(pod, *node, requiredNodeAffinity)) continue;
      // Only domains of feasible nodes are counted (the hostname key has none: Score counts per node).
      // The maps' structure is fixed here; only the counts change, atomically.
      auto& counts = s->topologyValueToPodCounts[i];
      auto it = counts.find(labelValueOrEmpty(node->metadata.labels, cs[i].topologyKey));
      if (it == counts.end()) continue;
      const int count = countPodsMatchSelector(nodeInfo.podMatchGroups(), cs[i].selector, pod.metadata.namespace_);
      if (count != 0) std::atomic_ref<int64_t>(it->second).fetch_add(count, std::memory_order_relaxed);
    }
  });

  state.write(std::make_unique<PreScoreState>(std::move(s)));
  return framework::Status();
}

framework::Status PodTopologySpread::score(framework::CycleState& state, const framework::PodInfo& pod,
                                           const framework::NodeInfo& nodeInfo, int64_t& score) {
  score = 0;
  const PreScoreData* s = readPreScoreData(state);
  if (s == nullptr) return framework::Status::error(std::string(kPreScoreStateNotFound));
  const api::Node* node = nodeInfo.node();
  if (node == nullptr) return framework::Status::error("node not found");
  if (!s->ignoredNodes.empty() && s->ignoredNodes.contains(node->metadata.name)) return framework::Status();

  // The node gets the (weighted) matching pods of each of its domains.
  double sum = 0;
  const api::Labels& labels = node->metadata.labels;
  for (size_t i = 0; i < s->constraints.size(); ++i) {
    const auto& c = s->constraints[i];
    auto tpVal = labels.find(c.topologyKey);
    if (tpVal == labels.end()) continue;
    int64_t cnt = 0;
    if (c.topologyKey == kLabelHostname) {
      cnt = countPodsMatchSelector(nodeInfo.podMatchGroups(), c.selector, pod.pod().metadata.namespace_);
    } else {
      // Every feasible, non-ignored node's domain is in the map.
      const auto& counts = s->topologyValueToPodCounts[i];
      if (auto it = counts.find(tpVal->second); it != counts.end()) cnt = it->second;
    }
    sum += scoreForCount(cnt, c.maxSkew, s->topologyNormalizingWeight[i]);
  }
  score = static_cast<int64_t>(std::round(sum));
  return framework::Status();
}

framework::Status PodTopologySpread::normalizeScore(framework::CycleState& state,
                                                    const framework::PodInfo& /*pod*/,
                                                    framework::NodeScoreList& scores) {
  const PreScoreData* s = readPreScoreData(state);
  if (s == nullptr) return framework::Status::error(std::string(kPreScoreStateNotFound));

  int64_t minScore = std::numeric_limits<int64_t>::max();
  int64_t maxScore = 0;
  for (auto& score : scores) {
    // Ignored nodes must be checked here: they scored 0 in Score.
    if (!s->ignoredNodes.empty() && s->ignoredNodes.contains(score.name)) {
      score.score = kInvalidScore;
      continue;
    }
    minScore = std::min(minScore, score.score);
    maxScore = std::max(maxScore, score.score);
  }
  for (auto& score : scores) {
    if (score.score == kInvalidScore) {
      score.score = 0;
      continue;
    }
    if (maxScore == 0) {
      score.score = framework::kMaxNodeScore;
      continue;
    }
    score.score = framework::kMaxNodeScore * (maxScore + minScore - score.score) / maxScore;
  }
  return framework::Status();
}

}  // namespace ks::plugins::podtopologyspread
