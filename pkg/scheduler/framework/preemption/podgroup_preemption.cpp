#include "pkg/scheduler/framework/preemption/podgroup_preemption.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <set>

#include "pkg/informer/store.h"
#include "pkg/scheduler/metrics/metrics.h"

namespace ks::framework::preemption {

namespace {

// A non-Success status of a PreFilter extension becomes an Error carrying its message (upstream turns it
// into a Go error, and the error back into a status).
Status asError(const Status& s) {
  return Status::fromError(s.asError().value_or(Error(s.message())));
}

// Upstream resolvePreemptionPolicy without PodGroupPreemptionPolicy (alpha, refused): Never as soon as one
// member says so.
bool preemptsNever(const PodGroupInfo& group) {
  return std::any_of(group.unscheduledPods.begin(), group.unscheduledPods.end(), [](const api::PodPtr& p) {
    return p->spec.preemptionPolicy && *p->spec.preemptionPolicy == "Never";
  });
}

}  // namespace

PodGroupEvaluator::PodGroupEvaluator(Handle& handle, Executor& executor,
                                     const informer::Store<api::PodDisruptionBudget>& pdbs)
    : handle_(handle), executor_(executor), pdbs_(pdbs) {}

Status PodGroupEvaluator::preempt(const PodGroupInfo& group, const PodGroupSchedulingFunc& schedule,
                                  PodGroupPostFilterResult& result) {
  result = PodGroupPostFilterResult{};
  MutableSharedLister* snapshot = handle_.mutableSnapshotSharedLister();
  if (snapshot == nullptr) return Status::error("failed to create domain: no snapshot lister");
  if (!group.podGroup) return Status::error("pod group object not found for pod group " + group.key());
  // The domain: every victim in the cluster (upstream newDomainForWorkloadPreemption).
  auto domain = victimsOnNodes(*snapshot, snapshot->podGroupManager(), snapshot->nodeInfos().list(),
                               std::chrono::time_point_cast<api::Time::duration>(handle_.clock().now()));
  if (!domain.ok()) return Status::error("failed to create domain: " + domain.error().message());
  const int32_t priority = group.priority();

  if (preemptsNever(group)) {
    spdlog::debug("Preemptor is not eligible for preemption preemptor={} type=podgroup", group.key());
    return Status(Code::Unschedulable, "not eligible due to preemptionPolicy=Never.");
  }
  if (isOngoingPreemption(*snapshot, group, priority)) {
    for (const api::PodPtr& pod : group.unscheduledPods) {
      result.nominatingInfos[podGroupKey(pod->metadata.namespace_, pod->metadata.name)] =
          NominatingInfo{pod->status.nominatedNodeName, NominatingMode::Override};
    }
    return Status(Code::Success, "ongoing preemption on nominated nodes");
  }

  // Upstream evaluate(), timed as preemption_evaluation_duration_seconds{preemptor="podgroup"}.
  const auto start = std::chrono::steady_clock::now();
  Selection selection;
  Status status = selectVictimsOnDomain(*snapshot, priority, *domain, pdbs_.list(), schedule, selection);
  if (metrics::Metrics* m = handle_.metrics()) {
    m->observePreemptionEvaluation(
        "podgroup", status.code(),
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  if (!status.isSuccess()) return status;

  Candidate candidate{"cluster", std::move(selection.victims)};
  candidate.numPodGroupDisruptions = selection.numPodGroupDisruptions;
  status = executor_.actuatePodGroupPreemption(candidate, *group.podGroup, group.unscheduledPods);
  if (status.isSuccess()) {
    status = Status(Code::Success, "found a placement for podgroup, preempting " +
                                       std::to_string(candidate.victims.pods.size()) + " victims");
  }
  result = std::move(selection.nominations);
  return status;
}

Status PodGroupEvaluator::selectVictimsOnDomain(MutableSharedLister& snapshot, int32_t preemptorPriority,
                                                std::vector<Victim>& domain, const PDBList& pdbs,
                                                const PodGroupSchedulingFunc& schedule, Selection& out) {
  std::vector<const Victim*> potentialVictims;
  for (const Victim& v : domain) {
    if (v.priority() < preemptorPriority) potentialVictims.push_back(&v);
  }
  if (potentialVictims.empty()) {
    return Status(Code::UnschedulableAndUnresolvable, "No preemption victims found for incoming preemptor");
  }
  // The nodes the victims and the placed members touch, by name; a victim's nodes are all in the snapshot.
  std::map<std::string, NodeInfoPtr, std::less<>> nameToNode;
  for (const NodeInfoPtr& n : snapshot.nodeInfos().list()) nameToNode.emplace(n->nodeName(), n);
  for (const Victim* v : potentialVictims) {
    for (const auto& [name, info] : v->affectedNodes()) nameToNode.try_emplace(name, info);
  }
  auto nodeOf = [&](std::string_view name) -> const NodeInfo& { return *nameToNode.at(std::string(name)); };

  for (const Victim* v : potentialVictims) {
    for (const PodInfoPtr& pi : v->pods()) {
      if (auto r = snapshot.removePod(pi->pod(), pi->pod().spec.nodeName); !r.ok()) return Status::fromError(r.error());
    }
  }
  // The group's placement with every potential victim gone; the members' cycle states come from this run
  // (member N's was built with members 1..N-1 assumed and reserved, knowing nothing of later ones).
  PodGroupAssignments placement = schedule();
  if (!placement.status.isSuccess()) return placement.status;

  std::stable_sort(potentialVictims.begin(), potentialVictims.end(),
                   [](const Victim* a, const Victim* b) { return moreImportantVictim(*a, *b); });
  const VictimsByPDBViolation byViolation = filterVictimsWithPDBViolation(potentialVictims, pdbs);
  std::vector<const ProposedAssignment*> placed;
  for (const ProposedAssignment& a : placement.proposed) {
    if (!a.nodeName.empty()) placed.push_back(&a);
  }

  auto addVictim = [&](const Victim& v) -> Status {
    for (const PodInfoPtr& pi : v.pods()) {
      const std::string& node = pi->pod().spec.nodeName;
      if (auto r = snapshot.addPod(pi, node); !r.ok()) return Status::fromError(r.error());
      for (const ProposedAssignment* a : placed) {
        if (Status s = handle_.runPreFilterExtensionAddPod(*a->state, *a->podInfo, pi, nodeOf(node)); !s.isSuccess()) {
          return asError(s);
        }
      }
    }
    return {};
  };
  auto removeVictim = [&](const Victim& v) -> Status {
    for (const PodInfoPtr& pi : v.pods()) {
      const std::string& node = pi->pod().spec.nodeName;
      if (auto r = snapshot.removePod(pi->pod(), node); !r.ok()) return Status::fromError(r.error());
      for (const ProposedAssignment* a : placed) {
        if (Status s = handle_.runPreFilterExtensionRemovePod(*a->state, *a->podInfo, pi, nodeOf(node));
            !s.isSuccess()) {
          return asError(s);
        }
      }
    }
    return {};
  };
  // Gives the victim back; it stays reprieved when every placed member, in the cycle's order, still passes
  // Filter on its node with the members before it placed and reserved (they are taken out again after).
  auto reprieve = [&](const Victim& v, bool& fits) -> Status {
    if (Status s = addVictim(v); !s.isSuccess()) return s;
    std::vector<const ProposedAssignment*> reserved;
    Status status;
    fits = true;
    for (const ProposedAssignment* a : placed) {
      if (!handle_.runFilterPluginsWithNominatedPods(*a->state, *a->podInfo, nodeOf(a->nodeName)).isSuccess()) {
        fits = false;
        status = removeVictim(v);
        break;
      }
      if (auto r = snapshot.addPod(a->podInfo, a->nodeName); !r.ok()) {
        status = Status::fromError(r.error());
        break;
      }
      // Upstream ignores Reserve's status here: the members were reserved on these nodes before.
      (void)handle_.runReservePluginsReserve(*a->state, *a->podInfo, a->nodeName);
      reserved.push_back(a);
    }
    for (auto it = reserved.rbegin(); it != reserved.rend(); ++it) {
      const ProposedAssignment& a = **it;
      handle_.runReservePluginsUnreserve(*a.state, *a.podInfo, a.nodeName);
      if (auto r = snapshot.removePod(a.podInfo->pod(), a.nodeName); !r.ok() && status.isSuccess()) {
        status = Status::fromError(r.error());
      }
    }
    return status;
  };

  // Reprieve the PDB-violating victims first, then the others, each from the most important down.
  std::vector<const Victim*> toPreempt;
  int64_t numViolating = 0;
  for (const auto& [v, violatingPods] : byViolation.violating) {
    bool fits = false;
    if (Status s = reprieve(*v, fits); !s.isSuccess()) return s;
    if (!fits) {
      toPreempt.push_back(v);
      numViolating += violatingPods;
    }
  }
  for (const Victim* v : byViolation.nonViolating) {
    bool fits = false;
    if (Status s = reprieve(*v, fits); !s.isSuccess()) return s;
    if (!fits) toPreempt.push_back(v);
  }
  std::stable_sort(toPreempt.begin(), toPreempt.end(),
                   [](const Victim* a, const Victim* b) { return moreImportantVictim(*a, *b); });
  for (const Victim* v : toPreempt) {
    if (v->isGroup()) ++out.numPodGroupDisruptions;
    for (const PodInfoPtr& pi : v->pods()) out.victims.pods.push_back(pi);
  }
  out.victims.numPDBViolations = numViolating;
  for (const ProposedAssignment* a : placed) {
    const api::Pod& pod = a->podInfo->pod();
    out.nominations.nominatingInfos[podGroupKey(pod.metadata.namespace_, pod.metadata.name)] =
        NominatingInfo{a->nodeName, NominatingMode::Override};
  }
  return {};
}

bool PodGroupEvaluator::isOngoingPreemption(const SharedLister& snapshot, const PodGroupInfo& group,
                                            int32_t preemptorPriority) const {
  std::set<std::string, std::less<>> nominatedNodes;
  for (const api::PodPtr& pod : group.unscheduledPods) {
    if (!pod->status.nominatedNodeName.empty()) nominatedNodes.insert(pod->status.nominatedNodeName);
  }
  const PodGroupManager* groups = snapshot.podGroupManager();
  for (const std::string& name : nominatedNodes) {
    auto node = snapshot.nodeInfos().get(name);
    if (!node.ok()) continue;
    for (const PodInfoPtr& pi : (*node)->pods()) {
      if (podPreemptionPriority(pi->pod(), groups) < preemptorPriority && podTerminatingByPreemption(pi->pod())) {
        return true;
      }
    }
  }
  return false;
}

}  // namespace ks::framework::preemption
