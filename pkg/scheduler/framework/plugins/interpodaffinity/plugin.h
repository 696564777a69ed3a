#pragma once
// InterPodAffinity (upstream plugins/interpodaffinity, v1.34: plugin.go, filtering.go, scoring.go).
//
// Filter enforces required pod affinity and anti-affinity in both directions: the incoming pod's terms
// against the pods already in each topology domain, and the required anti-affinity terms of existing
// pods against the incoming pod. PreFilter counts, per (topologyKey, value) pair, the existing pods that
// match the incoming pod's terms and the existing pods whose anti-affinity terms match the incoming pod,
// so Filter is a few map lookups per node. Score sums, per topology domain, the weights of the preferred
// terms that match in either direction (plus hardPodAffinityWeight for existing pods' required affinity
// terms the incoming pod matches), normalized to [0, MaxNodeScore].
//
// Namespaces: the incoming pod's terms have their namespaceSelector resolved (through the namespace
// informer) into their namespace set at PreFilter/PreScore; existing pods' terms are matched against the
// incoming pod's namespace labels (upstream GetNamespaceLabelsSnapshot: no labels when the namespace is
// unknown).

#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/api/core.h"
#include "pkg/scheduler/apis/config/types.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/util/result.h"
#include "pkg/scheduler/framework/plugins/interpodaffinity/value_counts.h"

namespace ks::informer {
template <typename T>
class Store;
}  // namespace ks::informer

namespace ks::plugins::interpodaffinity {

inline constexpr std::string_view kErrReasonExistingAntiAffinityRulesNotMatch =
    "node(s) didn't satisfy existing pods anti-affinity rules";
inline constexpr std::string_view kErrReasonAffinityRulesNotMatch = "node(s) didn't match pod affinity rules";
inline constexpr std::string_view kErrReasonAntiAffinityRulesNotMatch =
    "node(s) didn't match pod anti-affinity rules";

// A topology domain: a node label key and value.
struct TopologyPair {
  std::string key;
  std::string value;
  bool operator==(const TopologyPair&) const = default;
};
std::ostream& operator<<(std::ostream& os, const TopologyPair& p);

// Upstream topologyToMatchedTermCount: matching pods (or matching terms) per topology domain. Held by key,
// then value (a handful of keys with many values each), so a node is checked with one lookup per key.
// No entry is zero: one that reaches zero is dropped.
class TopologyToMatchedTermCount {
 public:
  TopologyToMatchedTermCount() = default;
  TopologyToMatchedTermCount(std::initializer_list<std::pair<TopologyPair, int64_t>> entries) {
    for (const auto& [pair, count] : entries) add(pair.key, pair.value, count);
  }

  // Adds `delta` (possibly negative) to the domain's count.
  void add(std::string_view key, std::string_view value, int64_t delta);
  // The domain's count (0 when absent).
  int64_t count(std::string_view key, std::string_view value) const;
  // Whether a domain of `labels` (a node's) has a count above zero.
  bool anyPositive(const api::Labels& labels) const;
  bool empty() const { return byKey_.empty(); }
  void clear() { byKey_.clear(); }
  // Room for `domains` values under each key added from now on (spares rehashing while merging).
  void reserve(std::size_t domains) { reserve_ = domains; }

  bool operator==(const TopologyToMatchedTermCount& o) const { return byKey_ == o.byKey_; }
  // "{key: value}: count" entries in key and value order.
  friend std::ostream& operator<<(std::ostream& os, const TopologyToMatchedTermCount& m);

 private:
  std::map<std::string, ValueCounts, std::less<>> byKey_;
  std::size_t reserve_ = 0;
};

// Adds `value` to the node's domain for `topologyKey` (nothing when the node lacks the label); an entry
// that drops to zero is erased.
void updateCount(TopologyToMatchedTermCount& m, const api::Node* node, const std::string& topologyKey,
                 int64_t value);
// For each term, updateCount(term.topologyKey) when `pod` matches ALL terms.
void updateWithAffinityTerms(TopologyToMatchedTermCount& m, const std::vector<framework::AffinityTerm>& terms,
                             const api::Pod& pod, const api::Node* node, int64_t value);
// For each term that matches `pod` (with `nsLabels` as its namespace's labels), updateCount.
void updateWithAntiAffinityTerms(TopologyToMatchedTermCount& m,
                                 const std::vector<framework::AffinityTerm>& terms, const api::Pod& pod,
                                 const api::Labels& nsLabels, const api::Node* node, int64_t value);
// True iff `terms` is not empty and `pod` matches every term (namespace selectors against no labels:
// the incoming pod's selectors are already merged into its namespaces).
bool podMatchesAllAffinityTerms(const std::vector<framework::AffinityTerm>& terms, const api::Pod& pod);
// True iff `pod` matches at least one of `terms` (namespace selectors as above): what anti-affinity needs.
bool podMatchesAnyAffinityTerms(const std::vector<framework::AffinityTerm>& terms, const api::Pod& pod);

// The incoming pod as PreFilter / PreScore see it; shared (immutable) between a state and its clones.
struct IncomingPod {
  api::PodPtr pod;
  // The pod's required terms with the namespaces selected by namespaceSelector added to `namespaces`.
  std::vector<framework::AffinityTerm> requiredAffinityTerms;
  std::vector<framework::AffinityTerm> requiredAntiAffinityTerms;
  // The labels of the pod's namespace (empty when the namespace is unknown).
  api::Labels namespaceLabels;
};

// Computed at PreFilter, read by Filter, updated by AddPod/RemovePod (upstream preFilterState).
class PreFilterState final : public framework::StateData {
 public:
  // Existing pods whose required anti-affinity terms match the incoming pod, per domain.
  TopologyToMatchedTermCount existingAntiAffinityCounts;
  // Existing pods matching all of the incoming pod's required affinity terms (once per term), per domain.
  TopologyToMatchedTermCount affinityCounts;
  // Existing pods matching the incoming pod's required anti-affinity terms (once per term), per domain.
  TopologyToMatchedTermCount antiAffinityCounts;
  std::shared_ptr<const IncomingPod> incoming;

  // Copies the counts, shares `incoming`.
  std::unique_ptr<framework::StateData> clone() const override {
    return std::make_unique<PreFilterState>(*this);
  }
  // Adds (multiplier 1) or removes (-1) the counts `podInfo` on `node` contributes.
  void updateWithPod(const framework::PodInfo& podInfo, const api::Node* node, int64_t multiplier);
};

// Upstream scoreMap: topologyKey -> value -> score.
using ScoreMap = std::map<std::string, ValueCounts, std::less<>>;

// Computed at PreScore, read by Score and NormalizeScore. Immutable.
class PreScoreState final : public framework::StateData {
 public:
  ScoreMap topologyScore;
  std::unique_ptr<framework::StateData> clone() const override {
    return std::make_unique<PreScoreState>(*this);
  }
};

class InterPodAffinity final : public framework::PreFilterPlugin,
                               public framework::PreFilterExtensions,
                               public framework::FilterPlugin,
                               public framework::PreScorePlugin,
                               public framework::ScorePlugin,
                               public framework::ScoreExtensions,
                               public framework::EnqueueExtensions,
                               public framework::SignPlugin {
 public:
  static constexpr std::string_view kName = "InterPodAffinity";

  // Args are InterPodAffinityArgs (defaults when null). Errors: no snapshot lister ("SnapshotSharedlister
  // is nil"), no informer factory, wrong args type, the args validation error.
  static Result<std::unique_ptr<framework::Plugin>> create(const config::PluginArgs* args,
                                                           framework::Handle& handle);

  std::string_view name() const override { return kName; }

  // Opportunistic batching (upstream SignPod): the pod's labels (nothing with
  // ignorePreferredTermsOfExistingPods); Unschedulable (not signable) for a pod with pod affinity or
  // anti-affinity.
  framework::Status signPod(const api::Pod& pod, std::vector<framework::SignFragment>& fragments) override;

  // UnschedulableAndUnresolvable "parsing pod: <error>" when the pod's terms don't parse; Skip when no
  // existing pod's anti-affinity matches the pod and the pod has no required (anti-)affinity terms.
  framework::Status preFilter(framework::CycleState& state, const framework::PodInfo& pod,
                              std::span<const framework::NodeInfoPtr> nodes,
                              framework::PreFilterResult& result) override;
  framework::PreFilterExtensions* preFilterExtensions() override { return this; }
  framework::Status addPod(framework::CycleState& state, const framework::PodInfo& podToSchedule,
                           const framework::PodInfo& podInfoToAdd,
                           const framework::NodeInfo& nodeInfo) override;
  framework::Status removePod(framework::CycleState& state, const framework::PodInfo& podToSchedule,
                              const framework::PodInfo& podInfoToRemove,
                              const framework::NodeInfo& nodeInfo) override;

  // UnschedulableAndUnresolvable kErrReasonAffinityRulesNotMatch; Unschedulable
  // kErrReasonAntiAffinityRulesNotMatch or kErrReasonExistingAntiAffinityRulesNotMatch (checked in that
  // order). Error without PreFilter state.
  framework::Status filter(framework::CycleState& state, const framework::PodInfo& pod,
                           const framework::NodeInfo& nodeInfo) override;

  // Skip when ignorePreferredTermsOfExistingPods and the pod has no preferred terms, or when no domain
  // got a score; Error when the pod's terms don't parse.
  framework::Status preScore(framework::CycleState& state, const framework::PodInfo& pod,
                             std::span<const framework::NodeInfoPtr> nodes) override;
  // The sum of the scores of the node's domains (negative for anti-affinity).
  framework::Status score(framework::CycleState& state, const framework::PodInfo& pod,
                          const framework::NodeInfo& nodeInfo, int64_t& score) override;
  framework::ScoreExtensions* scoreExtensions() override { return this; }
  // Min-max scaling to [0, MaxNodeScore] (all 0 when every score is equal).
  framework::Status normalizeScore(framework::CycleState& state, const framework::PodInfo& pod,
                                   framework::NodeScoreList& scores) override;

  // AssignedPod Add|UpdatePodLabel|Delete, TargetPod UpdatePodLabel and Node Add|UpdateNodeLabel, with
  // hints (upstream v1.37).
  Result<std::vector<framework::ClusterEventWithHint>> eventsToRegister() override;

  // Queue when a scheduled (or nominated) pod was added matching all of the pod's required affinity
  // terms; updated to start matching them all, or to stop matching any of its anti-affinity terms; or
  // deleted while matching one of its anti-affinity terms, or with an anti-affinity term the pod matches.
  // Error (treated as Queue) when a pod's terms don't parse.
  Result<framework::QueueingHint> isSchedulableAfterAssignedPodChange(
      const api::Pod& pod, const framework::EventObject& oldObj, const framework::EventObject& newObj) const;
  // Always Queue: an existing pod's anti-affinity may no longer match the pod's new labels.
  Result<framework::QueueingHint> isSchedulableAfterTargetPodUpdateLabel(
      const api::Pod& pod, const framework::EventObject& oldObj, const framework::EventObject& newObj) const;
  // Queue when a node was added or changed in a way that may satisfy the pod's required affinity
  // (topology key added or its value changed) or anti-affinity (any added node; key removed or its
  // value changed).
  Result<framework::QueueingHint> isSchedulableAfterNodeChange(const api::Pod& pod,
                                                               const framework::EventObject& oldObj,
                                                               const framework::EventObject& newObj) const;

  // Upstream getExistingAntiAffinityCounts: over `nodes` (those with pods with required anti-affinity),
  // the existing pods' anti-affinity terms that match `pod` (in a namespace with `nsLabels`).
  TopologyToMatchedTermCount getExistingAntiAffinityCounts(const api::Pod& pod, const api::Labels& nsLabels,
                                                           std::span<const framework::NodeInfoPtr> nodes);
  // Upstream getIncomingAffinityAntiAffinityCounts: over all nodes, the existing pods matching the
  // incoming pod's required affinity terms (all of them) and anti-affinity terms (each).
  std::pair<TopologyToMatchedTermCount, TopologyToMatchedTermCount> getIncomingAffinityAntiAffinityCounts(
      const std::vector<framework::AffinityTerm>& affinityTerms,
      const std::vector<framework::AffinityTerm>& antiAffinityTerms,
      std::span<const framework::NodeInfoPtr> allNodes);

  // Upstream GetNamespaceLabelsSnapshot: the namespace's labels, empty when it is unknown.
  api::Labels namespaceLabels(const std::string& ns) const;

  const config::InterPodAffinityArgs& args() const { return args_; }

 private:
  InterPodAffinity(framework::Handle& handle, const config::InterPodAffinityArgs& args,
                   informer::Store<api::Namespace>& namespaces)
      : handle_(handle), args_(args), namespaces_(namespaces) {}

  // Upstream mergeAffinityTermNamespacesIfNotEmpty.
  void mergeAffinityTermNamespaces(framework::AffinityTerm& term) const;

  framework::Handle& handle_;
  config::InterPodAffinityArgs args_;
  informer::Store<api::Namespace>& namespaces_;
};

}  // namespace ks::plugins::interpodaffinity
