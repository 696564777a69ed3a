#pragma once
// Group preemption (upstream framework/preemption/podgrouppreemption.go, v1.37.2, GenericWorkload): what
// DefaultPreemption's PodGroupPostFilter runs when a pod-group cycle found no placement for the group.
// The domain is the whole cluster:
//
//   victims of lower priority than the group (a group with disruptionMode `all` is one victim) ->
//   remove them all from the cycle's snapshot -> re-run the group's placement (`schedule`) -> if it fits,
//   give victims back from the most important down (PDB-violating ones first), keeping each one whose
//   return still lets every placed member pass Filter (members are reserved one after the other, as in the
//   cycle) -> evict the rest through the executor and nominate each placed member to its node.
//
// The caller (the plugin) wraps preempt() in the snapshot's mutation session, so every snapshot change
// made here is undone when it returns. Not thread-safe: the scheduling thread's.

#include <string>
#include <vector>

#include "pkg/api/policy.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/scheduler/framework/listers.h"
#include "pkg/scheduler/framework/pod_group.h"
#include "pkg/scheduler/framework/preemption/executor.h"
#include "pkg/scheduler/framework/preemption/victim.h"

namespace ks::informer {
template <typename T>
class Store;
}  // namespace ks::informer

namespace ks::framework::preemption {

class PodGroupEvaluator {
 public:
  // `executor` evicts the victims (shared with the plugin's single-pod Evaluator); `pdbs` is the
  // PodDisruptionBudget informer's store.
  PodGroupEvaluator(Handle& handle, Executor& executor, const informer::Store<api::PodDisruptionBudget>& pdbs);

  // Upstream PodGroupEvaluator.Preempt. Success "found a placement for podgroup, preempting <n> victims"
  // with every placed member's nomination in `result`; Success "ongoing preemption on nominated nodes" (the
  // members keep their nominations) while a lower-priority pod on one of their nominated nodes is still
  // terminating by preemption; Unschedulable "not eligible due to preemptionPolicy=Never." when a member
  // says Never; UnschedulableAndUnresolvable "No preemption victims found for incoming preemptor"; the
  // re-run placement's own status when the group does not fit even without every victim; Error otherwise.
  Status preempt(const PodGroupInfo& group, const PodGroupSchedulingFunc& schedule, PodGroupPostFilterResult& result);

  // Public only because upstream's tests (podgrouppreemption_test.go) call it directly; preempt() is the
  // entry point. Upstream selectVictimsResult.
  struct Selection {
    Victims victims;
    int numPodGroupDisruptions = 0;
    PodGroupPostFilterResult nominations;
  };
  // Upstream selectVictimsOnDomain: `domain` is every victim in the cluster (victimsOnNodes), `snapshot`
  // must be inside a mutation session.
  Status selectVictimsOnDomain(MutableSharedLister& snapshot, int32_t preemptorPriority, std::vector<Victim>& domain,
                               const PDBList& pdbs, const PodGroupSchedulingFunc& schedule, Selection& out);

 private:
  // Upstream isOngoingPreemption.
  bool isOngoingPreemption(const SharedLister& snapshot, const PodGroupInfo& group, int32_t preemptorPriority) const;

  Handle& handle_;
  Executor& executor_;
  const informer::Store<api::PodDisruptionBudget>& pdbs_;
};

}  // namespace ks::framework::preemption
