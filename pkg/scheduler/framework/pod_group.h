#pragma once
// Gang scheduling's shared vocabulary (GenericWorkload, scheduling.k8s.io/v1beta1 PodGroup): upstream's
// fwk.PodGroupInfo / PodGroupState / PodGroupManager, framework.PlacementProgress and
// PlacementFeasiblePlugin, and the queue's pod-group entity (framework.QueuedPodGroupInfo).
//
// A pod belongs to a group when spec.schedulingGroup.podGroupName is set; the group is the PodGroup of
// that name in the pod's namespace. The cache keeps a PodGroupState per group (every member it has seen,
// scheduled or not); the queue schedules a group's pending members together as one entity (the pod-group
// cycle, upstream schedule_one_podgroup.go). CompositePodGroup (alpha) is not modelled here.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/core.h"
#include "pkg/api/scheduling.h"
#include "pkg/scheduler/framework/cycle_state.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/scheduler/framework/status.h"
#include "pkg/scheduler/framework/types.h"

namespace ks::framework {

using PodGroupPtr = std::shared_ptr<const api::PodGroup>;

// "namespace/name", the key of a PodGroup (upstream fwk.PodGroupKey) in the cache and the queue.
inline std::string podGroupKey(std::string_view ns, std::string_view name) {
  std::string key;
  key.reserve(ns.size() + 1 + name.size());
  key.append(ns).append("/").append(name);
  return key;
}

// The name of the PodGroup the pod belongs to, or null when it belongs to none.
inline const std::string* podGroupNameOf(const api::Pod& pod) {
  if (!pod.spec.schedulingGroup || !pod.spec.schedulingGroup->podGroupName) return nullptr;
  return &*pod.spec.schedulingGroup->podGroupName;
}
inline bool isPodGroupMember(const api::Pod& pod) { return podGroupNameOf(pod) != nullptr; }

// Upstream's errPodGroupUnschedulable: the first reason of a pod-group cycle's verdict (Go's Status.Reasons()
// puts a status's error first), and what the failure handler recognises a group's verdict by.
inline constexpr std::string_view kPodGroupUnschedulable = "pod group is unschedulable";

// The group's priority (upstream util.PodGroupPriority): spec.priority, 0 when unset.
inline int32_t podGroupPriority(const api::PodGroup& pg) { return pg.spec.priority.value_or(0); }

// The gang's minCount, 1 for a basic group (upstream getMinCount).
inline int32_t podGroupMinCount(const api::PodGroup& pg) {
  return pg.spec.schedulingPolicy.gang ? pg.spec.schedulingPolicy.gang->minCount : 1;
}

// What the scheduler knows of one group's members (upstream fwk.PodGroupState). A pod is counted from the
// moment the scheduler's informer sees it (queued, gated or not) until it is deleted; it is "scheduled"
// once assumed (in the cache, or in the snapshot during a pod-group cycle) or bound.
class PodGroupState {
 public:
  virtual ~PodGroupState() = default;
  // Every member seen (upstream AllPodsCount).
  virtual int allPodsCount() const = 0;
  // Assumed + assigned members (upstream ScheduledPodsCount).
  virtual int scheduledPodsCount() const = 0;
  // Members neither assumed nor assigned (upstream UnscheduledPods, keyed there by name).
  virtual std::vector<api::PodPtr> unscheduledPods() const = 0;
  // UIDs of the members assumed and not yet bound (upstream AssumedPods).
  virtual std::vector<std::string> assumedPodUids() const = 0;
  // Assumed + assigned members (upstream ScheduledPods).
  virtual std::vector<api::PodPtr> scheduledPods() const = 0;
};
using PodGroupStatePtr = std::shared_ptr<const PodGroupState>;

// The PodGroup objects and their member states (upstream fwk.PodGroupManager: PodGroups() and
// PodGroupStates()). The cache implements it live (thread-safe; what PreEnqueue and Permit read), and the
// snapshot as of the cycle's start plus what the pod-group cycle assumed in it.
class PodGroupManager {
 public:
  virtual ~PodGroupManager() = default;
  // The PodGroup object; null while it is not (or no longer) observed.
  virtual PodGroupPtr podGroup(std::string_view ns, std::string_view name) const = 0;
  // The group's member state; null when the scheduler knows neither the group nor any member.
  virtual PodGroupStatePtr podGroupState(std::string_view ns, std::string_view name) const = 0;
};

// One group as the pod-group cycle sees it (upstream framework.PodGroupInfo, without composite children).
struct PodGroupInfo {
  std::string namespace_;
  std::string name;
  // The object as of the cycle's start (reconciled with the snapshot); null while not observed.
  PodGroupPtr podGroup;
  // The queued members this cycle tries, in the order it tries them (upstream
  // PodGroupMemberPodsOrderingFunc: priority desc, attempts desc, timestamp asc, name asc).
  std::vector<api::PodPtr> unscheduledPods;

  std::string key() const { return podGroupKey(namespace_, name); }
  int32_t priority() const { return podGroup ? podGroupPriority(*podGroup) : 0; }
};

// Where a pod-group cycle stands after each member (upstream framework.PlacementProgress).
struct PlacementProgress {
  // Members of this cycle not evaluated yet.
  int remaining = 0;
  // Members scheduled so far: assigned or assumed before the cycle, plus those placed in it.
  int scheduled = 0;
};

// Called before the first and after every member of a pod-group cycle (upstream
// framework.PlacementFeasiblePlugin). Success: the group can be placed as it stands (and stays so for
// the rest of the cycle); Wait: not yet, more members may make it; Unschedulable: it cannot be, whatever
// the remaining members do (the cycle stops; the placement stays eligible for preemption). Anything else
// is an error.
class PlacementFeasiblePlugin : public virtual Plugin {
 public:
  virtual Status placementFeasible(CycleState& placementState, const PodGroupInfo& group,
                                   const PlacementProgress& progress) = 0;
};

// One member's placement from a run of the group's scheduling algorithm (upstream fwk.ProposedAssignment):
// the node it fitted on ("" when it did not) and the cycle state it was filtered with, which was built
// with the members before it assumed and knows nothing of those after it.
struct ProposedAssignment {
  PodInfoPtr podInfo;
  std::string nodeName;
  std::shared_ptr<CycleState> state;
};

// Re-runs the group's scheduling algorithm against the snapshot as it is now (upstream
// fwk.PodGroupSchedulingFunc): every member in the cycle's order, each with a fresh cycle state, and
// undoes its snapshot assumptions before returning. The status is the group's verdict.
struct PodGroupAssignments {
  std::vector<ProposedAssignment> proposed;
  Status status;
};
using PodGroupSchedulingFunc = std::function<PodGroupAssignments()>;

// What PodGroupPostFilter (group preemption) decided (upstream fwk.PodGroupPostFilterResult): the node each
// member is nominated to, by "namespace/name".
struct PodGroupPostFilterResult {
  std::map<std::string, NominatingInfo, std::less<>> nominatingInfos;
};

// The cycle states a pod-group cycle filtered its members with, by "namespace/name", in the group's cycle
// state for PodGroupPostFilter (upstream's per-pod plugins record what they need there, DynamicResources
// its per-pod state).
struct PodGroupMemberStates final : StateData {
  std::map<std::string, std::shared_ptr<CycleState>, std::less<>> byPod;
  std::unique_ptr<StateData> clone() const override { return std::make_unique<PodGroupMemberStates>(*this); }
};

// Runs when a pod-group cycle finds the group unschedulable (upstream fwk.PodGroupPostFilterPlugin):
// Success means room is being made (victims evicted) and the members are nominated per `result`;
// Unschedulable / UnschedulableAndUnresolvable say why not. `schedule` may be called with the cycle's
// snapshot mutated (inside a MutableSharedLister session).
class PodGroupPostFilterPlugin : public virtual Plugin {
 public:
  virtual Status podGroupPostFilter(CycleState& state, const PodGroupInfo& group,
                                    const PodGroupSchedulingFunc& schedule, PodGroupPostFilterResult& result) = 0;
};

// A pod group waiting in the scheduling queue as one entity (upstream framework.QueuedPodGroupInfo
// without composite groups). Its queueing history is the group's own; its members keep theirs.
struct QueuedPodGroupInfo : QueueingParams {
  PodGroupInfo group;
  // The queued members, in PodGroupInfo::unscheduledPods' order (the two lists are kept equal).
  std::vector<QueuedPodInfo> pods;

  int32_t priority() const { return group.priority(); }
  size_t size() const { return pods.size(); }
};

}  // namespace ks::framework
