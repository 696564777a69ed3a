#pragma once
// NodeResourcesBalancedAllocation (upstream plugins/noderesources/balanced_allocation.go, v1.37): favours
// nodes the pod makes more balanced. The balance of a node is S = (1 - std) * MaxNodeScore over the
// fractions used / allocatable (each capped at 1) of the configured resources; the score is
// 50 + (50 + S(with the pod) - S(without it)) / 2, 75 when the pod changes nothing. Best-effort pods (no
// request for any configured resource) skip the plugin (PreScore returns Skip, kubernetes#129138).

#include <memory>
#include <string_view>
#include <vector>

#include "pkg/scheduler/apis/config/types.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/scheduler/framework/plugins/noderesources/features.h"
#include "pkg/scheduler/framework/plugins/noderesources/fit.h"
#include "pkg/scheduler/framework/plugins/noderesources/resource_allocation.h"
#include "pkg/util/result.h"

namespace ks::plugins::noderesources {

// The pod's per-resource requests and the cycle's DRA data, computed in PreScore.
class BalancedAllocationPreScoreState final : public ScoringPreScoreState {
 public:
  using ScoringPreScoreState::ScoringPreScoreState;
  std::unique_ptr<framework::StateData> clone() const override {
    return std::make_unique<BalancedAllocationPreScoreState>(*this);
  }
};

class BalancedAllocation final : public framework::PreScorePlugin,
                                 public framework::ScorePlugin,
                                 public framework::SignPlugin {
 public:
  static constexpr std::string_view kName = "NodeResourcesBalancedAllocation";

  // Validates args with config::validateNodeResourcesBalancedAllocationArgs, as upstream.
  // `deviceClasses`: the SharedDRAManager's extended-resource resolver (DRAExtendedResource), may be null.
  // `draManager`: where scoring reads DRA-backed extended resources (DRAExtendedResource), may be null.
  static Result<std::unique_ptr<BalancedAllocation>> create(
      const config::NodeResourcesBalancedAllocationArgs& args, const Features& features = {},
      const framework::DeviceClassResolver* deviceClasses = nullptr,
      framework::SharedDRAManager* draManager = nullptr);
  static Result<std::unique_ptr<framework::Plugin>> create(const config::PluginArgs* args,
                                                           framework::Handle& handle,
                                                           const Features& features = {});

  std::string_view name() const override { return kName; }

  // Opportunistic batching (upstream SignPod): as NodeResourcesFit's.
  framework::Status signPod(const api::Pod& pod, std::vector<framework::SignFragment>& fragments) override;

  // Skip for best-effort pods; otherwise stores the pod's requests and the cycle's DRA data (Error when
  // that can't be gathered).
  framework::Status preScore(framework::CycleState& state, const framework::PodInfo& pod,
                             std::span<const framework::NodeInfoPtr> nodes) override;
  // 0 for a best-effort pod when PreScore didn't run.
  framework::Status score(framework::CycleState& state, const framework::PodInfo& pod,
                          const framework::NodeInfo& nodeInfo, int64_t& score) override;
  framework::ScoreExtensions* scoreExtensions() override { return nullptr; }

 private:
  BalancedAllocation(ResourceAllocationScorer scorer, ResourceRequestsOptions requestsOptions,
                     const framework::DeviceClassResolver* deviceClasses)
      : scorer_(std::move(scorer)), requestsOptions_(requestsOptions), deviceClasses_(deviceClasses) {}

  ResourceAllocationScorer scorer_;
  ResourceRequestsOptions requestsOptions_;
  const framework::DeviceClassResolver* deviceClasses_;  // null without DRAExtendedResource
};

}  // namespace ks::plugins::noderesources
