#pragma once
// PodTopologySpread (upstream plugins/podtopologyspread): spreads matching pods evenly across topology
// domains (zones, hosts, ...). Filter enforces the pod's DoNotSchedule constraints (skew of the node's
// domain, after placing the pod, at most maxSkew above the global minimum); Score prefers domains with
// fewer matching pods for ScheduleAnyway constraints. Pods without constraints get the configured default
// constraints (System: hostname maxSkew 3 and zone maxSkew 5, ScheduleAnyway) with a selector deduced
// from their Services and controller (helper::defaultSelector).

#include <array>
#include <climits>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "pkg/api/apps.h"
#include "pkg/api/nodeselector.h"
#include "pkg/informer/store.h"
#include "pkg/scheduler/apis/config/types.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/scheduler/framework/plugins/podtopologyspread/common.h"
#include "pkg/util/result.h"

namespace ks::plugins::podtopologyspread {

// Filter reasons (upstream ErrReasonConstraintsNotMatch / ErrReasonNodeLabelNotMatch).
inline constexpr std::string_view kErrReasonConstraintsNotMatch =
    "node(s) didn't match pod topology spread constraints";
inline constexpr std::string_view kErrReasonNodeLabelNotMatch =
    "node(s) didn't match pod topology spread constraints (missing required label)";

// One domain of a constraint and its number of matching pods.
struct CriticalPath {
  std::string topologyValue;
  int matchNum = INT32_MAX;
  bool operator==(const CriticalPath&) const = default;
};

// The two domains with the fewest matching pods of a constraint, as upstream criticalPaths:
// [0].matchNum is always the minimum; [1].matchNum >= [0].matchNum but is not guaranteed to be the
// second minimum. Two entries suffice because preemption only removes pods from one node at a time,
// each node on its own copy of the state.
struct CriticalPaths {
  std::array<CriticalPath, 2> paths;

  // Records that domain `tpVal` now has `num` matching pods.
  void update(const std::string& tpVal, int num);
  bool operator==(const CriticalPaths&) const = default;
};

// Domain value -> number of matching pods, for one constraint.
using TpValueToMatchNum = std::unordered_map<std::string, int>;

// What PreFilter computed about the incoming pod; immutable, shared by clones.
struct PreFilterPod {
  std::vector<TopologySpreadConstraint> constraints;
  // Per constraint: 1 when the incoming pod matches the constraint's own selector, else 0.
  std::vector<int> selfMatchNum;
  // The incoming pod's nodeSelector and required node affinity.
  api::RequiredNodeAffinity requiredNodeAffinity;
};

// Upstream preFilterState: written by PreFilter, read by Filter (concurrently), updated by AddPod /
// RemovePod on a clone owned by one thread. Vectors are indexed by constraint.
class PreFilterState final : public framework::StateData {
 public:
  std::shared_ptr<const PreFilterPod> pod;
  std::vector<CriticalPaths> criticalPaths;
  std::vector<TpValueToMatchNum> tpValueToMatchNum;

  const std::vector<TopologySpreadConstraint>& constraints() const;
  // The global minimum for the skew of constraint i: 0 while the constraint has fewer eligible domains
  // than minDomains, else the smallest domain count.
  int minMatchNum(size_t i, int32_t minDomains) const;
  // Deep-copies the counts and critical paths (AddPod/RemovePod mutate them); shares `pod`.
  std::unique_ptr<framework::StateData> clone() const override {
    return std::make_unique<PreFilterState>(*this);
  }
};

// Upstream preScoreState: written by PreScore, then only read (Score runs concurrently).
struct PreScoreData {
  std::vector<TopologySpreadConstraint> constraints;
  // Feasible nodes missing some constraint's topologyKey; they score 0.
  std::unordered_set<std::string> ignoredNodes;
  // Per constraint: matching pods per domain of the feasible nodes (empty for the hostname key, whose
  // count is taken per node in Score).
  std::vector<std::unordered_map<std::string, int64_t>> topologyValueToPodCounts;
  // Per constraint: log(number of domains + 2), so that counts in topologies with few domains are not
  // watered down by topologies with many.
  std::vector<double> topologyNormalizingWeight;
};

class PreScoreState final : public framework::StateData {
 public:
  explicit PreScoreState(std::shared_ptr<const PreScoreData> d) : data(std::move(d)) {}
  std::shared_ptr<const PreScoreData> data;
  // Immutable: the clone shares the data.
  std::unique_ptr<framework::StateData> clone() const override {
    return std::make_unique<PreScoreState>(*this);
  }
};

class PodTopologySpread final : public framework::PreFilterPlugin,
                                public framework::PreFilterExtensions,
                                public framework::FilterPlugin,
                                public framework::PreScorePlugin,
                                public framework::ScorePlugin,
                                public framework::ScoreExtensions,
                                public framework::EnqueueExtensions,
                                public framework::SignPlugin {
 public:
  static constexpr std::string_view kName = "PodTopologySpread";

  // Args are PodTopologySpreadArgs (defaults, i.e. System defaulting, when null). Errors: wrong args
  // type, the args validation error, no snapshot lister ("SnapshotSharedlister is nil"), or default
  // constraints without an informer factory ("SharedInformerFactory is nil"). With default constraints
  // it takes the Service, ReplicationController, ReplicaSet and StatefulSet informers of the factory.
  static Result<std::unique_ptr<framework::Plugin>> create(const config::PluginArgs* args,
                                                           framework::Handle& handle,
                                                           Features features = {});
  // Same, from typed args.
  static Result<std::unique_ptr<PodTopologySpread>> create(const config::PodTopologySpreadArgs& args,
                                                           framework::Handle& handle,
                                                           const Features& features);

  std::string_view name() const override { return kName; }

  // Opportunistic batching (upstream SignPod): nothing; Unschedulable (not signable) for a pod with topology
  // spread constraints, and for every pod when the plugin has default constraints (System defaulting has).
  framework::Status signPod(const api::Pod& pod, std::vector<framework::SignFragment>& fragments) override;

  // Counts the matching pods per domain of every DoNotSchedule constraint over `nodes` (in parallel).
  // Skip when the pod has no such constraint (nor default ones); Error when a selector fails to parse.
  framework::Status preFilter(framework::CycleState& state, const framework::PodInfo& pod,
                              std::span<const framework::NodeInfoPtr> nodes,
                              framework::PreFilterResult& result) override;
  framework::PreFilterExtensions* preFilterExtensions() override { return this; }
  // Count a pod added to / removed from `nodeInfo`'s node (same namespace as the pod to schedule, on a
  // node that counts for the constraint).
  framework::Status addPod(framework::CycleState& state, const framework::PodInfo& podToSchedule,
                           const framework::PodInfo& podInfoToAdd,
                           const framework::NodeInfo& nodeInfo) override;
  framework::Status removePod(framework::CycleState& state, const framework::PodInfo& podToSchedule,
                              const framework::PodInfo& podInfoToRemove,
                              const framework::NodeInfo& nodeInfo) override;

  // UnschedulableAndUnresolvable kErrReasonNodeLabelNotMatch when the node lacks a topologyKey;
  // Unschedulable kErrReasonConstraintsNotMatch when matchNum + selfMatch - globalMin > maxSkew for some
  // constraint; Error without PreFilter state. Allocates nothing on success.
  framework::Status filter(framework::CycleState& state, const framework::PodInfo& pod,
                           const framework::NodeInfo& nodeInfo) override;

  // Counts the matching pods per domain of every ScheduleAnyway constraint over all nodes. Skip when the
  // snapshot has no nodes or the pod has no such constraint (nor default ones).
  framework::Status preScore(framework::CycleState& state, const framework::PodInfo& pod,
                             std::span<const framework::NodeInfoPtr> nodes) override;
  // Sum over constraints of count(node's domain) * weight + maxSkew - 1, rounded; 0 for ignored nodes.
  framework::Status score(framework::CycleState& state, const framework::PodInfo& pod,
                          const framework::NodeInfo& nodeInfo, int64_t& score) override;
  framework::ScoreExtensions* scoreExtensions() override { return this; }
  // Fewer matching pods score higher: MaxNodeScore * (max + min - score) / max; ignored nodes get 0.
  framework::Status normalizeScore(framework::CycleState& state, const framework::PodInfo& pod,
                                   framework::NodeScoreList& scores) override;

  // AssignedPod Add|UpdatePodLabel|Delete, TargetPod UpdatePodToleration|UpdatePodLabel and Node
  // Add|Delete|UpdateNodeLabel|UpdateNodeTaint, each with a hint (upstream v1.37).
  Result<std::vector<framework::ClusterEventWithHint>> eventsToRegister() override;

  // Queue when a scheduled (or nominated) pod in the same namespace is added or deleted matching a
  // constraint's selector, or relabeled so that it starts or stops matching one.
  Result<framework::QueueingHint> isSchedulableAfterAssignedPodChange(
      const api::Pod& pod, const framework::EventObject& oldObj, const framework::EventObject& newObj) const;
  // Queue when the pod itself got new tolerations while a constraint honours taints, or was relabeled so
  // that it starts or stops matching a constraint's selector.
  Result<framework::QueueingHint> isSchedulableAfterTargetPodChange(
      const api::Pod& pod, const framework::EventObject& oldObj, const framework::EventObject& newObj) const;
  // Queue when a node that has (or had) every topologyKey is added, deleted, starts or stops having them,
  // or changes a topologyKey value or its taints.
  Result<framework::QueueingHint> isSchedulableAfterNodeChange(const api::Pod& pod,
                                                               const framework::EventObject& oldObj,
                                                               const framework::EventObject& newObj) const;

  // The pod's DoNotSchedule constraints, or the default ones with the default selector when the pod
  // has none (upstream getConstraints).
  Result<std::vector<TopologySpreadConstraint>> getConstraints(const api::Pod& pod) const;

 private:
  PodTopologySpread(framework::Handle& handle, const Features& features)
      : handle_(handle), features_(features) {}

  // The default constraints with `action`, each with the pod's default selector; empty when none apply
  // or the selector is empty (upstream buildDefaultConstraints).
  Result<std::vector<TopologySpreadConstraint>> buildDefaultConstraints(const api::Pod& pod,
                                                                        std::string_view action) const;
  // Applies `delta` for `updatedPod` on `nodeInfo`'s node (upstream updateWithPod).
  void updateWithPod(PreFilterState& s, const api::Pod& updatedPod, const api::Pod& preemptorPod,
                     const api::Node* node, int delta) const;
  // The PreFilter state of `pod` over `nodes`; null when the pod has no hard constraints.
  Result<std::unique_ptr<PreFilterState>> calPreFilterState(const api::Pod& pod,
                                                            std::span<const framework::NodeInfoPtr> nodes);
  // The PreScore state before counting (domains of the feasible nodes, ignored nodes, weights); null when
  // the pod has no soft constraints.
  Result<std::shared_ptr<PreScoreData>> initPreScoreState(
      const api::Pod& pod, std::span<const framework::NodeInfoPtr> filteredNodes,
      bool requireAllTopologies) const;

  framework::Handle& handle_;
  const Features features_;
  std::vector<api::TopologySpreadConstraint> defaultConstraints_;
  bool systemDefaulted_ = false;
  // Set when there are default constraints (owned by the informer factory).
  const informer::Store<api::Service>* services_ = nullptr;
  const informer::Store<api::ReplicationController>* replicationCtrls_ = nullptr;
  const informer::Store<api::ReplicaSet>* replicaSets_ = nullptr;
  const informer::Store<api::StatefulSet>* statefulSets_ = nullptr;
};

}  // namespace ks::plugins::podtopologyspread
