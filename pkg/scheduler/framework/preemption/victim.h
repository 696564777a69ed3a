#pragma once
// Preemption units (upstream framework/preemption types.go and util.go, v1.37.2): what preemption
// evicts is a Victim — one pod, or, with GenericWorkload, every scheduled pod of a PodGroup whose
// spec.disruptionMode is `all` (such a group is evicted whole or not at all, across nodes). Both the
// single-pod evaluator (per candidate node) and the pod-group evaluator (the whole cluster) work on
// victims: they remove every eligible one, check the preemptor fits, then reprieve victims from the
// most important down (the PDB-violating ones first) while it still fits.
//
// A victim's priority is its PodGroup's (spec.priority) when the pod belongs to one and the gate is on,
// else the pod's own. CompositePodGroup (alpha) is not modelled: no hierarchy walk.
//
// Threads: plain values; built and read by the scheduling thread and the dry-run workers (each worker
// builds its own).

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "pkg/api/core.h"
#include "pkg/api/policy.h"
#include "pkg/scheduler/framework/listers.h"
#include "pkg/scheduler/framework/pod_group.h"
#include "pkg/scheduler/framework/types.h"
#include "pkg/util/result.h"

namespace ks::framework::preemption {

using PDBList = std::vector<std::shared_ptr<const api::PodDisruptionBudget>>;

// Upstream fwk.EntityKeyType as far as victims go. A pod of a group with disruptionMode `single` is a
// one-pod victim of type PodGroup (it ranks above a plain pod of the same priority).
enum class VictimType : uint8_t { Pod, PodGroup };

// Upstream DomainVictim: the pods evicted together, their common priority, and the nodes they run on.
class Victim {
 public:
  // `pods` is not empty. A pod without status.startTime counts as started at `now` (upstream
  // util.GetPodStartTime); pass one `now` for all victims that are compared with each other.
  Victim(std::vector<PodInfoPtr> pods, int32_t priority, VictimType type, api::Time now);

  const std::vector<PodInfoPtr>& pods() const { return pods_; }
  int32_t priority() const { return priority_; }
  VictimType type() const { return type_; }
  bool isGroup() const { return type_ == VictimType::PodGroup; }
  // The earliest start time of its pods.
  api::Time earliestStartTime() const { return earliestStartTime_; }
  // Node name -> the snapshot's NodeInfo, for every node hosting one of the pods (empty until
  // setAffectedNodes; upstream newDomainVictim).
  const std::map<std::string, NodeInfoPtr>& affectedNodes() const { return affectedNodes_; }
  void setAffectedNodes(std::map<std::string, NodeInfoPtr> nodes) { affectedNodes_ = std::move(nodes); }

 private:
  std::vector<PodInfoPtr> pods_;
  int32_t priority_;
  VictimType type_;
  api::Time earliestStartTime_;
  std::map<std::string, NodeInfoPtr> affectedNodes_;
};

// Upstream MoreImportantVictim: higher priority; then groups before pods; then more pods; then the
// earlier start. Victims sort from the most important down with this (stably, so ties keep the order
// they were found in).
bool moreImportantVictim(const Victim& a, const Victim& b);

// The priority preemption sees for the pod (upstream GetPodPriority): its PodGroup's when it belongs to a
// group `groups` knows, else its own. `groups` is null with GenericWorkload off.
int32_t podPreemptionPriority(const api::Pod& pod, const PodGroupManager* groups);

// A one-pod victim (upstream NewPodVictim): type PodGroup when the pod names a group and `groups` is
// set, without affected nodes.
Victim newPodVictim(PodInfoPtr pod, const PodGroupManager* groups, api::Time now);

// The victims whose pods run on `nodes` (upstream getCrossNodesVictims + createDomainVictims): each pod
// on its own, except the scheduled pods of a group with disruptionMode `all`, which make one victim
// together (wherever they run, once however many of `nodes` they are on). `groups` null (GenericWorkload
// off): every pod on its own at its own priority. Affected nodes are looked up in `snapshot`; the error
// is "failed to get node info for node "<name>" from snapshot: ...".
Result<std::vector<Victim>> victimsOnNodes(const SharedLister& snapshot, const PodGroupManager* groups,
                                           std::span<const NodeInfoPtr> nodes, api::Time now);

// Upstream FilterVictimsWithPDBViolation: splits victims (in order) into those with at least one pod
// whose eviction would take a matching PodDisruptionBudget below zero allowed disruptions — with the
// number of such pods — and the others. A budget is drawn on across all victims in order; a pod already
// in a budget's disruptedPods doesn't count against it again. A victim is atomic: one violating pod makes
// the whole victim violating.
struct VictimsByPDBViolation {
  std::vector<std::pair<const Victim*, int>> violating;
  std::vector<const Victim*> nonViolating;
};
VictimsByPDBViolation filterVictimsWithPDBViolation(std::span<const Victim* const> victims, const PDBList& pdbs);

// True when the pod is terminating because the scheduler preempted it (its DisruptionTarget condition,
// reason PreemptionByScheduler; upstream PodTerminatingByPreemption).
bool podTerminatingByPreemption(const api::Pod& pod);

}  // namespace ks::framework::preemption
