#pragma once
// DefaultPreemption (upstream plugins/defaultpreemption, v1.37.2): when no node fits a pod, evict
// lower-priority pods from one node so that it does, and nominate the pod to that node.
//
// PostFilter runs the preemption Evaluator with this plugin's choices. What is evicted are victims: a pod,
// or with GenericWorkload all scheduled pods of a PodGroup with disruptionMode `all` (wherever they run),
// at the group's priority. A victim may be evicted when its priority is below the preemptor pod's (and
// IsEligiblePod allows it on every node it touches); on each candidate node all of them are removed, then
// reprieved one by one (the ones whose eviction would violate a PodDisruptionBudget first, each list from
// the most important down) while the pod still fits; the dry run covers max(minCandidateNodesPercentage% of
// the potential nodes, minCandidateNodesAbsolute) nodes from a random offset. A pod with preemptionPolicy
// Never, or whose nominated node still has victims terminating, does not preempt.
//
// With asynchronous preemption (SchedulerAsyncPreemption, on) the evictions run off the scheduling thread
// and PreEnqueue keeps the preemptor out of activeQ until they are done; with GenericWorkload a member of a
// pod group is kept out while its group's preemption runs.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/scheduler/apis/config/types.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/scheduler/framework/preemption/podgroup_preemption.h"
#include "pkg/scheduler/framework/preemption/preemption.h"
#include "pkg/util/result.h"

namespace ks::plugins::defaultpreemption {

class DefaultPreemption final : public framework::PostFilterPlugin,
                                public framework::PodGroupPostFilterPlugin,
                                public framework::PreEnqueuePlugin,
                                public framework::EnqueueExtensions,
                                public framework::preemption::Interface {
 public:
  static constexpr std::string_view kName = "DefaultPreemption";

  // The feature gates the plugin reads (v1.37.2 defaults).
  struct Features {
    bool enableAsyncPreemption = true;
    // GenericWorkload (beta, off): victims are pod-group aware; PreEnqueue gates a group's members.
    bool enableGenericWorkload = false;
  };

  // Whether `victim` may be preempted by `preemptor`, beyond having a lower priority (upstream
  // IsEligiblePodFunc). Asked once per node the victim has a pod on (nodeInfo: that node); the victim is
  // eligible only if every node says yes. Any rule should let system services preempt normal pods.
  using IsEligiblePodFunc =
      std::function<bool(const framework::NodeInfo& nodeInfo, const framework::preemption::Victim& victim,
                         const api::Pod& preemptor)>;
  // True when the first victim is more important than the second (upstream MoreImportantVictimFunc): the
  // less important ones are evicted first, the more important ones reprieved first.
  using MoreImportantVictimFunc =
      std::function<bool(const framework::preemption::Victim& a, const framework::preemption::Victim& b)>;

  // Needs Handle::sharedInformerFactory() (pods and PodDisruptionBudgets).
  static Result<std::unique_ptr<DefaultPreemption>> create(const config::PluginArgs* args, framework::Handle& handle,
                                                           Features features);

  std::string_view name() const override { return kName; }

  framework::Status postFilter(framework::CycleState& state, const framework::PodInfo& pod,
                               const framework::NodeToStatus& filteredNodeStatusMap,
                               framework::PostFilterResult& result) override;
  // Group preemption (upstream PodGroupPostFilter, GenericWorkload): the pod-group evaluator inside a
  // mutation session of the cycle's snapshot; a message is prefixed "pod group preemption: ". Counted in
  // scheduler_workload_preemption_attempts_total{result}.
  framework::Status podGroupPostFilter(framework::CycleState& state, const framework::PodGroupInfo& group,
                                       const framework::PodGroupSchedulingFunc& schedule,
                                       framework::PodGroupPostFilterResult& result) override;
  // UnschedulableAndUnresolvable while the pod's asynchronous preemption (with GenericWorkload, for a
  // group's member: its group's) is still evicting.
  framework::Status preEnqueue(const framework::PodInfo& pod) override;
  // With asynchronous preemption: AssignedPod/Delete, whose hint is always Skip: the plugins that rejected
  // the pod decide when it is worth retrying; the registration only lets a deletion reach a gated pod.
  Result<std::vector<framework::ClusterEventWithHint>> eventsToRegister() override;

  // ---- preemption::Interface ----
  std::pair<int32_t, int32_t> getOffsetAndNumCandidates(int32_t numNodes) override;
  std::optional<std::string> podEligibleToPreemptOthers(const api::Pod& pod,
                                                        const framework::Status& nominatedNodeStatus) override;
  framework::Status selectVictimsOnNode(framework::CycleState& state, const framework::PodInfo& pod,
                                        framework::NodeInfo& nodeInfo,
                                        std::span<const framework::preemption::Victim> allPossibleVictims,
                                        const framework::preemption::PDBList& pdbs,
                                        framework::preemption::Victims& victims) override;
  std::vector<framework::preemption::NodeScoreFunc> orderedScoreFuncs(
      const std::map<std::string, const framework::preemption::Victims*>& nodesToVictims) override;

  // max(numNodes * minCandidateNodesPercentage / 100, minCandidateNodesAbsolute), at most numNodes.
  int32_t calculateNumCandidates(int32_t numNodes) const;

  framework::preemption::Evaluator& evaluator() { return *evaluator_; }
  // Evicts the chosen victims (shared with the pod-group evaluator, as upstream's Executor field).
  framework::preemption::Executor& executor() { return *executor_; }
  // Replaces the random offset (uniform in [0, numNodes)) of the dry run, for deterministic tests.
  void setOffsetFunc(std::function<int32_t(int32_t numNodes)> fn) { offsetFunc_ = std::move(fn); }
  // Replace the default rules (upstream's IsEligiblePod / MoreImportantVictim fields): by default every
  // lower-priority victim is eligible, and victims rank by moreImportantVictim.
  void setIsEligiblePod(IsEligiblePodFunc fn) { isEligiblePod_ = std::move(fn); }
  void setMoreImportantVictim(MoreImportantVictimFunc fn) { moreImportantVictim_ = std::move(fn); }

 private:
  DefaultPreemption(framework::Handle& handle, const config::DefaultPreemptionArgs& args, Features features);
  // Upstream isPreemptionAllowed: lower priority than the preemptor pod, and eligible on `nodeInfo`.
  bool isPreemptionAllowed(const framework::NodeInfo& nodeInfo, const framework::preemption::Victim& victim,
                           const api::Pod& preemptor) const;
  // Upstream isPreemptionAllowedAcrossAllVictimNodes: lower priority, and eligible on every affected node.
  bool isPreemptionAllowedAcrossAllVictimNodes(const framework::preemption::Victim& victim,
                                               const api::Pod& preemptor) const;

  framework::Handle& handle_;
  const config::DefaultPreemptionArgs args_;
  const Features features_;
  std::function<int32_t(int32_t)> offsetFunc_;
  IsEligiblePodFunc isEligiblePod_;  // empty: every victim is eligible
  MoreImportantVictimFunc moreImportantVictim_;
  // The evaluator refers to the executor: declared after it, destroyed before it.
  std::unique_ptr<framework::preemption::Executor> executor_;
  std::unique_ptr<framework::preemption::Evaluator> evaluator_;
  std::unique_ptr<framework::preemption::PodGroupEvaluator> podGroupEvaluator_;  // with GenericWorkload
};

}  // namespace ks::plugins::defaultpreemption
