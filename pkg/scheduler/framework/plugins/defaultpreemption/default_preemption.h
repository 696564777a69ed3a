#pragma once
// DefaultPreemption (upstream plugins/defaultpreemption, v1.34): when no node fits a pod, evict
// lower-priority pods from one node so that it does, and nominate the pod to that node.
//
// PostFilter runs the preemption Evaluator with this plugin's choices: a victim is any pod of lower
// priority; on each candidate node all of them are removed, then reprieved one by one (the ones whose
// eviction would violate a PodDisruptionBudget first, each group from the most important) while the
// pod still fits; the dry run covers max(minCandidateNodesPercentage% of the potential nodes,
// minCandidateNodesAbsolute) nodes from a random offset. A pod with preemptionPolicy Never, or whose
// nominated node still has victims terminating, does not preempt.
//
// With asynchronous preemption (SchedulerAsyncPreemption, on in v1.34) the evictions run off the
// scheduling thread and PreEnqueue keeps the preemptor out of activeQ until they are done.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/scheduler/apis/config/types.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/scheduler/framework/preemption/preemption.h"
#include "pkg/util/result.h"

namespace ks::plugins::defaultpreemption {

class DefaultPreemption final : public framework::PostFilterPlugin,
                                public framework::PreEnqueuePlugin,
                                public framework::EnqueueExtensions,
                                public framework::preemption::Interface {
 public:
  static constexpr std::string_view kName = "DefaultPreemption";

  // The feature gates the plugin reads (v1.34 defaults).
  struct Features {
    bool enableAsyncPreemption = true;
  };

  // Needs Handle::sharedInformerFactory() (pods and PodDisruptionBudgets).
  static Result<std::unique_ptr<DefaultPreemption>> create(const config::PluginArgs* args, framework::Handle& handle,
                                                           Features features);

  std::string_view name() const override { return kName; }

  framework::Status postFilter(framework::CycleState& state, const framework::PodInfo& pod,
                               const framework::NodeToStatus& filteredNodeStatusMap,
                               framework::PostFilterResult& result) override;
  // UnschedulableAndUnresolvable while the pod's asynchronous preemption is still evicting.
  framework::Status preEnqueue(const framework::PodInfo& pod) override;
  // With asynchronous preemption: AssignedPod/Delete, whose hint is always Skip: the plugins that rejected
  // the pod decide when it is worth retrying; the registration only lets a deletion reach a gated pod.
  Result<std::vector<framework::ClusterEventWithHint>> eventsToRegister() override;

  // ---- preemption::Interface ----
  std::pair<int32_t, int32_t> getOffsetAndNumCandidates(int32_t numNodes) override;
  std::optional<std::string> podEligibleToPreemptOthers(const api::Pod& pod,
                                                        const framework::Status& nominatedNodeStatus) override;
  framework::Status selectVictimsOnNode(framework::CycleState& state, const framework::PodInfo& pod,
                                        framework::NodeInfo& nodeInfo, const framework::preemption::PDBList& pdbs,
                                        framework::preemption::Victims& victims) override;
  std::vector<framework::preemption::NodeScoreFunc> orderedScoreFuncs(
      const std::map<std::string, const framework::preemption::Victims*>& nodesToVictims) override;

  // max(numNodes * minCandidateNodesPercentage / 100, minCandidateNodesAbsolute), at most numNodes.
  int32_t calculateNumCandidates(int32_t numNodes) const;

  framework::preemption::Evaluator& evaluator() { return *evaluator_; }
  // Replaces the random offset (uniform in [0, numNodes)) of the dry run, for deterministic tests.
  void setOffsetFunc(std::function<int32_t(int32_t numNodes)> fn) { offsetFunc_ = std::move(fn); }

 private:
  DefaultPreemption(framework::Handle& handle, const config::DefaultPreemptionArgs& args, Features features);
  // Only pods of lower priority than the preemptor may be evicted.
  static bool isPreemptionAllowed(const api::Pod& victim, const api::Pod& preemptor);

  framework::Handle& handle_;
  const config::DefaultPreemptionArgs args_;
  const Features features_;
  std::function<int32_t(int32_t)> offsetFunc_;
  std::unique_ptr<framework::preemption::Evaluator> evaluator_;
};

// Splits pods (in order) into those whose eviction would take a matching PodDisruptionBudget below
// zero allowed disruptions and the others (upstream filterPodsWithPDBViolation). A pod already listed in
// a budget's disruptedPods doesn't count against it again.
void filterPodsWithPDBViolation(const std::vector<framework::PodInfoPtr>& pods,
                                const framework::preemption::PDBList& pdbs,
                                std::vector<framework::PodInfoPtr>& violating,
                                std::vector<framework::PodInfoPtr>& nonViolating);

// True when the pod is terminating because the scheduler preempted it (its DisruptionTarget condition).
bool podTerminatingByPreemption(const api::Pod& pod);

}  // namespace ks::plugins::defaultpreemption
