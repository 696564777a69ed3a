#pragma once
// NodeAffinity (upstream plugins/nodeaffinity): Filter enforces pod.spec.nodeSelector, the pod's
// required node affinity and the scheduler-enforced NodeAffinityArgs.addedAffinity; Score sums the
// weights of the matching preferred terms (the pod's and addedAffinity's), normalized to [0, 100].

#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "pkg/api/nodeselector.h"
#include "pkg/scheduler/apis/config/types.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/util/result.h"

namespace ks::plugins::nodeaffinity {

inline constexpr std::string_view kErrReasonPod = "node(s) didn't match Pod's node affinity/selector";
inline constexpr std::string_view kErrReasonEnforced =
    "node(s) didn't match scheduler-enforced node affinity";
inline constexpr std::string_view kErrReasonConflict = "pod affinity terms conflict";

// The pod's nodeSelector and required node affinity, compiled once in PreFilter. Immutable.
class PreFilterState final : public framework::StateData {
 public:
  explicit PreFilterState(api::RequiredNodeAffinity r) : requiredNodeSelectorAndAffinity_(std::move(r)) {}
  std::unique_ptr<framework::StateData> clone() const override {
    return std::make_unique<PreFilterState>(*this);
  }
  const api::RequiredNodeAffinity& requiredNodeSelectorAndAffinity() const {
    return requiredNodeSelectorAndAffinity_;
  }

 private:
  api::RequiredNodeAffinity requiredNodeSelectorAndAffinity_;
};

// The pod's preferred terms, compiled once in PreScore (nullopt when the pod has none). Immutable.
class PreScoreState final : public framework::StateData {
 public:
  explicit PreScoreState(std::optional<api::PreferredSchedulingTerms> p)
      : preferredNodeAffinity_(std::move(p)) {}
  std::unique_ptr<framework::StateData> clone() const override {
    return std::make_unique<PreScoreState>(*this);
  }
  const std::optional<api::PreferredSchedulingTerms>& preferredNodeAffinity() const {
    return preferredNodeAffinity_;
  }

 private:
  std::optional<api::PreferredSchedulingTerms> preferredNodeAffinity_;
};

class NodeAffinity final : public framework::PreFilterPlugin,
                           public framework::FilterPlugin,
                           public framework::PreScorePlugin,
                           public framework::ScorePlugin,
                           public framework::ScoreExtensions,
                           public framework::EnqueueExtensions,
                           public framework::SignPlugin {
 public:
  static constexpr std::string_view kName = "NodeAffinity";

  // Args are NodeAffinityArgs (defaults when null). Errors: wrong args type, the args validation error,
  // or an addedAffinity that fails to compile.
  static Result<std::unique_ptr<framework::Plugin>> create(const config::PluginArgs* args,
                                                           framework::Handle& handle);
  // Same, from typed args.
  static Result<std::unique_ptr<NodeAffinity>> create(const config::NodeAffinityArgs& args);

  std::string_view name() const override { return kName; }

  // Opportunistic batching (upstream SignPod): the node affinity and the node selector.
  framework::Status signPod(const api::Pod& pod, std::vector<framework::SignFragment>& fragments) override;

  // Skip when there is nothing to check (no required node affinity, no nodeSelector, no addedAffinity).
  // With required terms that all name nodes through matchFields metadata.name In, restricts `result` to
  // those nodes; UnschedulableAndUnresolvable kErrReasonConflict when that set is empty.
  framework::Status preFilter(framework::CycleState& state, const framework::PodInfo& pod,
                              std::span<const framework::NodeInfoPtr> nodes,
                              framework::PreFilterResult& result) override;
  framework::PreFilterExtensions* preFilterExtensions() override { return nullptr; }

  // UnschedulableAndUnresolvable kErrReasonEnforced / kErrReasonPod; parse errors in the pod's terms
  // count as no match. Without PreFilter state the pod's terms are compiled here (slow path).
  framework::Status filter(framework::CycleState& state, const framework::PodInfo& pod,
                           const framework::NodeInfo& nodeInfo) override;

  // Compiles the pod's preferred terms; Skip when neither the pod nor addedAffinity has any; Error when
  // they fail to parse.
  framework::Status preScore(framework::CycleState& state, const framework::PodInfo& pod,
                             std::span<const framework::NodeInfoPtr> nodes) override;
  // Sum of the weights of matching preferred terms (addedAffinity's and the pod's).
  framework::Status score(framework::CycleState& state, const framework::PodInfo& pod,
                          const framework::NodeInfo& nodeInfo, int64_t& score) override;
  framework::ScoreExtensions* scoreExtensions() override { return this; }
  // DefaultNormalizeScore(MaxNodeScore, reverse=false).
  framework::Status normalizeScore(framework::CycleState& state, const framework::PodInfo& pod,
                                   framework::NodeScoreList& scores) override;

  // Node Add|UpdateNodeLabel with a hint (queueing hints enabled).
  Result<std::vector<framework::ClusterEventWithHint>> eventsToRegister() override;

  // Queue when an added node matches, or an updated node starts to match, the pod's required node
  // affinity and nodeSelector (and addedAffinity).
  Result<framework::QueueingHint> isSchedulableAfterNodeChange(const api::Pod& pod,
                                                               const framework::EventObject& oldObj,
                                                               const framework::EventObject& newObj) const;

 private:
  NodeAffinity() = default;

  std::optional<api::CompiledNodeSelector> addedNodeSelector_;
  std::optional<api::PreferredSchedulingTerms> addedPrefSchedTerms_;
};

}  // namespace ks::plugins::nodeaffinity
